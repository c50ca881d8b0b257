#include "ui/views/steps/stepblock.h"

#include "ui/views/heatmap/heatmapzoom.h"
#include "ui/views/widgets/labelheaderview.h"
#include "ui/views/widgets/numberdelegate.h"
#include "ui/document/latestjob.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/i18n/language.h"
#include "ui/render/heatmaprenderer.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace ui {

namespace {

/** Weights are probabilities: their colours span [0, 1] whatever the values; other steps span their values. */
std::optional<std::pair<double, double>> fixedRange(const StepTableModel& model)
{
    if (model.step() == core::Step::Weights && !model.isWeightedValues())
        return std::make_pair(0.0, 1.0);
    return std::nullopt;
}

QStringList axisLabels(const StepTableModel& model, Qt::Orientation orientation)
{
    const auto labels = model.labelSource();
    return labels ? labels(orientation) : QStringList();
}

/** The figure of a step model's matrix, with token labels where the model has them. With maxRows and
 *  maxCols, a larger matrix is shown as block means (a thumbnail has fewer pixels than a long
 *  sequence has cells), and the labels of an axis that was pooled are left out. */
render::HeatmapData figureData(const StepTableModel& model, int maxRows = 0, int maxCols = 0)
{
    render::HeatmapData data;
    data.values = maxRows > 0 && maxCols > 0 ? model.pooledMatrix(maxRows, maxCols) : model.matrix();
    if (data.values.rows() == model.rowCount())
        data.rowLabels = axisLabels(model, Qt::Vertical);
    if (data.values.cols() == model.columnCount())
        data.colLabels = axisLabels(model, Qt::Horizontal);
    data.range = fixedRange(model);
    return data;
}

/** figureData() for a thumbnail of `pixels`, as a function any thread may call; empty when the model's
 *  matrix is not one its trace stores. The labels of an axis are made there, and only when it is not pooled:
 *  512 tokens made on the GUI thread after every edit were thrown away by a thumbnail 200 pixels tall. */
std::function<render::HeatmapData(QSize)> thumbnailSource(const StepTableModel& model)
{
    auto pooled = model.pooledSource();
    auto labels = model.labelSource();
    if (!pooled || !labels)
        return {};
    const int rows = model.rowCount(), cols = model.columnCount();
    return [pooled = std::move(pooled), labels = std::move(labels), rows, cols,
            range = fixedRange(model)](QSize pixels) {
        render::HeatmapData data;
        data.values = pooled(pixels.height(), pixels.width());
        if (data.values.rows() == rows)
            data.rowLabels = labels(Qt::Vertical);
        if (data.values.cols() == cols)
            data.colLabels = labels(Qt::Horizontal);
        data.range = range;
        return data;
    };
}

/** A figure drawn into an image of `pixels` device pixels (any thread may call it). */
QImage renderPicture(const render::HeatmapRenderer& renderer, QSize pixels, double devicePixelRatio)
{
    QImage picture(pixels, QImage::Format_ARGB32_Premultiplied);
    if (picture.isNull())
        return picture;
    picture.setDevicePixelRatio(devicePixelRatio);
    QPainter p(&picture);
    renderer.paint(&p, QRectF(QPointF(0, 0), QSizeF(pixels) / devicePixelRatio));
    return picture;
}

/** The least height of a thumbnail's cells, however wide and short the matrix (pixels of 200). */
constexpr double minThumbnailMatrixHeight = 96.0;

/** Paints a HeatmapRenderer filling the widget. A thumbnail makes its figure after its source changes
 *  while some of it is on the screen, or when it is painted: a steps panel of 4096 tokens holds
 *  several, and one hidden or scrolled out of view waits. The block means of a very large matrix are
 *  taken, and its picture drawn, on a worker thread while the previous figure stays; paint only
 *  paints what is ready. A thumbnail keeps its picture: the window repaints it with every edit
 *  elsewhere, and copying an image is far cheaper than drawing a figure. */
class FigureWidget : public QWidget {
public:
    using Source = std::function<std::pair<render::HeatmapData, render::ColormapId>(QSize pixels)>;
    /** Called on a worker thread: must not touch any QObject. */
    using WorkerSource = std::function<render::HeatmapData(QSize pixels)>;

    FigureWidget(bool thumbnail, QWidget* parent)
        : QWidget(parent), m_thumbnail(thumbnail),
          m_job([this] { return preparing(); },
                [this](Prepared prepared) {
                    // null when the worker ran out of memory: an empty figure
                    m_renderer = std::move(prepared.renderer);
                    m_picture = std::move(prepared.picture);
                    update();
                })
    {
    }

    /** How many figures this widget made or had a worker make (tests and profiling). */
    quint64 figuresMade() const { return m_made; }

    void setFigure(render::HeatmapData data, render::ColormapId colormap)
    {
        takeFigure(std::move(data), colormap);
        update();
    }

    /** The figure comes from source, sized for the widget's pixels, now or when the widget is shown. */
    void setSource(Source source)
    {
        m_job.cancel();  // a figure a worker makes of an older source is stale
        m_workerSource = nullptr;
        m_source = std::move(source);
        schedulePrepare();
    }

    /** The same, with the figure made on a worker thread by the source that make() returns. */
    void setWorkerSource(std::function<WorkerSource()> make, render::ColormapId colormap)
    {
        m_source = nullptr;
        m_workerSource = std::move(make);
        m_workerColormap = colormap;
        schedulePrepare();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        // Painted with a newer source: shown, scrolled into view, or grabbed even while hidden. A figure
        // made on this thread is made now, so that what is painted is current; a worker's is asked for
        // once this paint is done, never started from the paint itself.
        if (m_source) {
            auto [data, colormap] = std::exchange(m_source, nullptr)(size() * devicePixelRatioF());
            takeFigure(std::move(data), colormap);
        }
        if (m_workerSource)
            schedulePrepare(true);
        const double dpr = devicePixelRatioF();
        const QSize pixels = size() * dpr;
        QPainter p(this);
        if (!m_renderer) {
            p.fillRect(rect(), palette().color(QPalette::Base));
        } else if (m_thumbnail) {
            if (m_picture.size() != pixels || m_picture.devicePixelRatio() != dpr)
                m_picture = renderPicture(*m_renderer, pixels, dpr);
            p.drawImage(QPointF(0, 0), m_picture);
        } else {
            m_renderer->paint(&p, rect());
        }
    }

    void changeEvent(QEvent* event) override
    {
        // The figure's colours and labels follow the widget's.
        if (m_renderer && (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)) {
            m_renderer->setStyle(figureStyle(m_renderer->style().colormap));
            m_picture = QImage();
            update();
        }
        QWidget::changeEvent(event);
    }

private:
    /** What a worker hands back: the figure and, for a thumbnail, its picture. */
    struct Prepared {
        std::shared_ptr<render::HeatmapRenderer> renderer;
        QImage picture;
    };

    /** Makes the figure of the newest source once the events of the moment are handled, and only when
     *  some of the widget is on the screen: a steps panel sets every block's source several times per
     *  edit (a reset, then its cells), and most of its thumbnails are scrolled out of view or in a
     *  hidden dock. One out of view makes its figure when it is painted, also by grab() while hidden. */
    void schedulePrepare(bool painted = false)
    {
        m_painted = m_painted || painted;
        if (m_prepareQueued || !wanted())
            return;
        m_prepareQueued = true;
        QMetaObject::invokeMethod(this, [this] { prepare(); }, Qt::QueuedConnection);
    }

    /** True when the newest source's figure is wanted now: the widget was painted, or some of it is on
     *  the screen. */
    bool wanted() const { return m_painted || (isVisible() && !visibleRegion().isEmpty()); }

    /** Makes the figure of the newest source (the one of a worker source on a worker). */
    void prepare()
    {
        m_prepareQueued = false;
        if (!wanted())
            return;  // scrolled out of view or hidden since: its paint asks again
        m_painted = false;
        if (m_source) {
            auto [data, colormap] = std::exchange(m_source, nullptr)(size() * devicePixelRatioF());
            setFigure(std::move(data), colormap);
        }
        if (m_workerSource)
            m_job.request();
    }

    /** Holds a new figure (counted for tests and profiling) without asking for a paint. */
    void takeFigure(render::HeatmapData data, render::ColormapId colormap)
    {
        ++m_made;
        m_renderer = std::make_shared<render::HeatmapRenderer>(std::move(data), figureStyle(colormap));
        m_picture = QImage();
        if (!m_thumbnail)
            setMinimumSize(m_renderer->preferredSize());
    }

    /** The worker's job for the newest worker source; empty when there is none. */
    LatestJob<Prepared>::Job preparing()
    {
        const WorkerSource source = m_workerSource ? std::exchange(m_workerSource, nullptr)() : WorkerSource();
        if (!source)
            return {};
        ++m_made;
        const double dpr = devicePixelRatioF();
        return [source, style = figureStyle(m_workerColormap), pixels = size() * dpr, dpr,
                picture = m_thumbnail]() -> Prepared {
            try {
                Prepared prepared;
                prepared.renderer = std::make_shared<render::HeatmapRenderer>(source(pixels), style);
                if (picture)
                    prepared.picture = renderPicture(*prepared.renderer, pixels, dpr);
                return prepared;
            } catch (const std::exception&) {
                return {};  // out of memory: an empty thumbnail, the window goes on
            }
        };
    }

    render::HeatmapStyle figureStyle(render::ColormapId colormap) const
    {
        render::HeatmapStyle style;
        style.colormap = colormap;
        style.font = font();
        style.palette = palette();
        style.showTitle = false;
        style.showLegend = !m_thumbnail;
        style.annotate = !m_thumbnail;
        if (m_thumbnail)
            style.minMatrixHeight = minThumbnailMatrixHeight;  // X of d_model 512 is more than a sliver
        return style;
    }

    bool m_thumbnail;
    Source m_source;
    std::function<WorkerSource()> m_workerSource;
    render::ColormapId m_workerColormap = render::ColormapId::Diverging;
    std::shared_ptr<render::HeatmapRenderer> m_renderer;
    QImage m_picture;  ///< a thumbnail's figure as drawn at the widget's size; null until drawn
    bool m_prepareQueued = false;  ///< prepare() is posted and has not run yet
    bool m_painted = false;        ///< painted since the last prepare(): the newest figure is wanted
    quint64 m_made = 0;
    LatestJob<Prepared> m_job;
};

render::ColormapId colormapOf(const StepTableModel& model)
{
    return model.isWeightedValues() ? render::ColormapId::Diverging : render::defaultColormap(model.step());
}

}  // namespace

StepBlock::StepBlock(StepTableModel* model, ViewState* view, const QString& caption, QWidget* parent)
    : QWidget(parent), m_model(model), m_view(view), m_caption(new QLabel(caption, this)),
      m_table(new QTableView(this)), m_thumbnail(new FigureWidget(true, this)), m_zoom(new QToolButton(this))
{
    m_caption->setTextFormat(Qt::RichText);
    m_caption->setAlignment(Qt::AlignHCenter);

    // Tokens and numbers label the sections: measured once each, not after every reset and resize.
    m_table->setHorizontalHeader(new LabelHeaderView(Qt::Horizontal, m_table));
    m_table->setVerticalHeader(new LabelHeaderView(Qt::Vertical, m_table));
    m_table->setModel(model);
    m_table->setItemDelegate(new NumberDelegate(m_table));
    m_table->setMouseTracking(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setFocusPolicy(Qt::NoFocus);
    // As wide as its columns, or the block's width with a scroll bar of its own when that is less.
    m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_table->setWordWrap(false);
    m_table->setCornerButtonEnabled(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    // Widths come from fitTable() for tables small enough to show; a header that measured its
    // contents itself would read every cell of a 4096 × 4096 step on each change, even hidden.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->verticalHeader()->setHighlightSections(false);
    m_table->viewport()->installEventFilter(this);
    connect(m_table, &QTableView::entered, this, [this](const QModelIndex& index) {
        m_view->setHovered(m_model->cellRef(index), m_model->sources(index));
    });

    m_thumbnail->setFixedSize(200, 200);
    retranslate();
    connect(m_zoom, &QToolButton::clicked, this, &StepBlock::zoom);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_caption);
    layout->addWidget(m_table, 0, Qt::AlignHCenter | Qt::AlignTop);
    layout->addWidget(m_thumbnail, 0, Qt::AlignHCenter);
    layout->addWidget(m_zoom, 0, Qt::AlignHCenter);
    layout->addStretch();

    // Header texts change only with a reset or new labels; their measures are kept between edits.
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_headerHints.clear();
        refresh();
    });
    connect(model, &QAbstractItemModel::headerDataChanged, this, [this] { m_headerHints.clear(); });
    connect(model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
                if (roles.isEmpty() || roles.contains(Qt::DisplayRole))
                    refresh();
            });
    model->setBaseColor(m_table->palette().color(QPalette::Base));
    refresh();
}

quint64 StepBlock::thumbnailFiguresMade() const
{
    return static_cast<const FigureWidget*>(m_thumbnail)->figuresMade();
}

bool StepBlock::isThumbnail() const
{
    return m_model->rowCount() > maxTableSide || m_model->columnCount() > maxTableSide;
}

void StepBlock::setCaption(const QString& caption)
{
    m_caption->setText(caption);
    // An open zoom is titled by the caption: it follows a language switch while open.
    for (QDialog* dialog : findChildren<QDialog*>(QStringLiteral("zoomDialog"), Qt::FindDirectChildrenOnly))
        retitleZoom(dialog);
}

QString StepBlock::zoomTitle() const
{
    return m_caption->text().remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

void StepBlock::retitleZoom(QDialog* dialog) const
{
    dialog->setWindowTitle(zoomTitle());
    if (auto* view = dialog->findChild<HeatmapZoomView*>(QStringLiteral("zoomView")))
        view->setAccessibleName(tr("%1 as a heatmap").arg(zoomTitle()));
}

void StepBlock::refresh()
{
    const bool thumbnail = isThumbnail();
    const bool empty = m_model->rowCount() == 0 || m_model->columnCount() == 0;
    m_table->setVisible(!thumbnail && !empty);
    m_thumbnail->setVisible(thumbnail);
    m_zoom->setVisible(thumbnail);
    auto* figure = static_cast<FigureWidget*>(m_thumbnail);
    if (thumbnail) {
        // Block means of a long sequence's matrix take milliseconds to tens of them: a worker takes them.
        if (m_model->pooledSource())
            figure->setWorkerSource([model = m_model] { return thumbnailSource(*model); }, colormapOf(*m_model));
        else
            figure->setSource([model = m_model](QSize pixels) {
                return std::make_pair(figureData(*model, pixels.height(), pixels.width()), colormapOf(*model));
            });
    }
    else if (!empty)
        fitTable();
}

void StepBlock::fitTable()
{
    QHeaderView* columns = m_table->horizontalHeader();
    if (int(m_headerHints.size()) != m_model->columnCount()) {
        // After a reset the headers lay out their sections lazily; measure the new ones.
        columns->doItemsLayout();
        m_table->verticalHeader()->doItemsLayout();
        m_headerHints.resize(std::size_t(m_model->columnCount()));
        for (int c = 0; c < m_model->columnCount(); ++c)
            m_headerHints[std::size_t(c)] = columns->sectionSizeHint(c);
        m_rowHeaderWidth = m_table->verticalHeader()->sizeHint().width();
        m_columnHeaderHeight = columns->sizeHint().height();
    }
    // Each column as wide as its widest number or its header, as resizeColumnsToContents() would
    // make it, from the two or three texts that can be widest instead of every cell's size hint:
    // that measured 25 000 cells per edit at 64 tokens.
    const QFontMetricsF metrics(m_table->font());
    // Bounded: a few thousand numbers are shown at once at most.
    constexpr qsizetype keptWidths = 16384;
    if (m_table->font() != m_textFont || m_textWidths.size() >= keptWidths) {
        m_textWidths.clear();
        m_textFont = m_table->font();
    }
    const auto textWidth = [&](const QString& text) {
        auto it = m_textWidths.find(text);
        if (it == m_textWidths.end())
            it = m_textWidths.insert(text, int(std::ceil(metrics.horizontalAdvance(text))));
        return *it;
    };
    const int margin = 2 * (m_table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_table) + 1)
        + (m_table->showGrid() ? 1 : 0);
    for (int c = 0; c < m_model->columnCount(); ++c) {
        int width = m_headerHints[std::size_t(c)];
        for (const QString& text : m_model->widestTexts(c))
            width = std::max(width, textWidth(text) + margin);
        if (columns->sectionSize(c) != width)
            columns->resizeSection(c, width);
    }
    const int width = m_rowHeaderWidth + columns->length() + 2 * m_table->frameWidth();
    const int height = m_columnHeaderHeight + m_table->verticalHeader()->length() + 2 * m_table->frameWidth();
    if (m_fullTable == QSize(width, height))
        return;  // the height follows the block's width in resizeEvent()
    m_fullTable = QSize(width, height);
    // At most its columns' width; at least a few of them, the rest behind its own scroll bar.
    constexpr int leastWidth = 160;
    m_table->setMinimumWidth(std::min(width, leastWidth));
    m_table->setMaximumWidth(width);
    fitTableHeight();
    // A child of a new size does not always make the layouts above it run again: ask them all.
    for (QWidget* w = this; w; w = w->parentWidget()) {
        if (w->layout())
            w->layout()->invalidate();
        w->updateGeometry();
    }
}

void StepBlock::fitTableHeight()
{
    if (m_fullTable.isEmpty() || m_table->isHidden())
        return;
    const bool scrolls = width() < m_fullTable.width();
    const int height = m_fullTable.height() + (scrolls ? m_table->horizontalScrollBar()->sizeHint().height() : 0);
    if (m_table->minimumHeight() != height || m_table->maximumHeight() != height)
        m_table->setFixedHeight(height);
}

void StepBlock::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitTableHeight();  // the scroll bar comes and goes with the width the panel gives
}

HeatmapZoomView* StepBlock::zoom()
{
    auto* dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("zoomDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* view = new HeatmapZoomView(figureData(*m_model), colormapOf(*m_model), dialog);
    view->setObjectName(QStringLiteral("zoomView"));
    auto* fit = new QPushButton(dialog);
    fit->setObjectName(QStringLiteral("zoomFitButton"));
    connect(fit, &QPushButton::clicked, view, &HeatmapZoomView::fit);
    auto* hint = new QLabel(dialog);
    hint->setObjectName(QStringLiteral("zoomHint"));
    hint->setForegroundRole(QPalette::PlaceholderText);
    // Its texts follow a language switch while it is open (the title with the caption, see setCaption()).
    i18n::onLanguageChange(dialog, [this, dialog, fit, hint] {
        retitleZoom(dialog);
        fit->setText(tr("&Fit"));
        fit->setToolTip(tr("Show the whole matrix"));
        hint->setText(tr("Wheel: zoom around the pointer · drag: move"));
    });
    auto* readout = new QLabel(dialog);
    readout->setObjectName(QStringLiteral("zoomReadout"));
    readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(view, &HeatmapZoomView::hovered, readout, &QLabel::setText);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* bar = new QHBoxLayout;
    bar->addWidget(fit);
    bar->addWidget(hint, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(readout, 1);
    bottom->addWidget(buttons);
    auto* layout = new QVBoxLayout(dialog);
    layout->addLayout(bar);
    layout->addWidget(view, 1);
    layout->addLayout(bottom);
    dialog->resize(900, 700);
    dialog->show();
    return view;
}

bool StepBlock::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Leave)
        m_view->setHovered(std::nullopt);
    return QWidget::eventFilter(watched, event);
}

void StepBlock::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        m_headerHints.clear();
    if (event->type() == QEvent::PaletteChange)
        m_model->setBaseColor(m_table->palette().color(QPalette::Base));
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void StepBlock::retranslate()
{
    m_thumbnail->setToolTip(tr("Too many numbers to read: the matrix as a heatmap. Zoom for a larger view."));
    m_zoom->setText(tr("Zoom…"));
    m_zoom->setToolTip(tr("Show this matrix as a large heatmap"));
}

}  // namespace ui
