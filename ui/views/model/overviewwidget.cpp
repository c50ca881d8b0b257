#include "ui/views/model/overviewwidget.h"

#include "ui/document/document.h"

#include <QEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace ui {

namespace {

/** The layers whose cells differ between two grids of the same frame (shape, tokens, mask); empty when the
 *  frame differs, so that everything is drawn anew. */
std::vector<bool> changedLayers(const render::AttentionGrid& before, const render::AttentionGrid& after)
{
    if (before.layers != after.layers || before.heads != after.heads || before.tokens != after.tokens
        || before.causal != after.causal || before.blockSide != after.blockSide || before.title != after.title
        || before.edited.empty() != after.edited.empty())  // the caption says whether any head is edited
        return {};
    std::vector<bool> changed(std::size_t(after.layers), false);
    for (int l = 0; l < after.layers; ++l)
        for (int h = 0; h < after.heads && !changed[std::size_t(l)]; ++h)
            changed[std::size_t(l)] = before.cell(l, h) != after.cell(l, h) || before.isEdited(l, h) != after.isEdited(l, h)
                || render::headCellLabel(before, l, h) != render::headCellLabel(after, l, h);
    return changed;
}

}  // namespace

OverviewWidget::OverviewWidget(Document* document, QWidget* parent)
    : QWidget(parent), m_document(document),
      m_job([this] { return preparing(); }, [this](std::shared_ptr<Picture> p) { prepared(std::move(p)); },
            [this](std::shared_ptr<Picture> stale) {
                // A picture overtaken by a resize still brings the grid it built: the next picture draws it.
                if (stale && stale->built && !m_gridWanted)
                    m_grid = stale->grid;
            })
{
    setObjectName(QStringLiteral("overviewWidget"));
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setAccessibleName(tr("Overview of every layer and head"));
    m_source = documentSource();
    connect(document, &Document::traceChanged, this, [this] {
        if (m_sourceIsDocument)
            refresh();
    });
    refresh();
}

OverviewWidget::~OverviewWidget() = default;

OverviewWidget::GridSource OverviewWidget::documentSource() const
{
    return [document = m_document]() -> GridJob {
        auto trace = document->trace();
        if (!trace || trace->n() == 0 || !document->error().isEmpty())
            return {};
        return [trace] { return std::make_shared<const render::AttentionGrid>(render::attentionGridFromTrace(*trace)); };
    };
}

void OverviewWidget::setGridSource(GridSource source)
{
    m_sourceIsDocument = !source;
    m_source = source ? std::move(source) : documentSource();
    refresh();
}

void OverviewWidget::refresh()
{
    m_gridWanted = true;
    if (!isNeeded()) {
        // Hidden behind another tab: a long session's grid costs a worker's second per edit for no one.
        // The grid kept is of an older state (perhaps another document): not shown, nor clicked, once it shows.
        m_stale = true;
        m_outdated = true;
        return;
    }
    m_stale = false;
    requestPicture();
}

void OverviewWidget::prepareNow()
{
    if (m_stale || !m_grid) {
        m_gridWanted = true;
        m_stale = false;
        requestPicture();
    }
    finishPreparing();
}

void OverviewWidget::addViewer(QWidget* viewer)
{
    m_viewers << viewer;
    viewer->installEventFilter(this);
    connect(viewer, &QObject::destroyed, this, [this, viewer] { m_viewers.removeAll(viewer); });
}

namespace {

/** Shown on screen: a dock's tab that is not the current one stays "visible", parked outside the window. */
bool onScreen(const QWidget* w)
{
    return w->isVisible() && !w->visibleRegion().isEmpty();
}

/** The events after which a widget may have come on screen. A dock's tab brought to the front moves the dock,
 *  not the widget in it: its first paint is what says so. */
bool mayHaveAppeared(const QEvent* event)
{
    return event->type() == QEvent::Show || event->type() == QEvent::Move || event->type() == QEvent::Resize
        || event->type() == QEvent::Paint;
}

}  // namespace

bool OverviewWidget::isNeeded() const
{
    return onScreen(this) || std::any_of(m_viewers.begin(), m_viewers.end(), onScreen);
}

bool OverviewWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (m_stale && mayHaveAppeared(event))
        QMetaObject::invokeMethod(this, [this] { if (m_stale) refresh(); }, Qt::QueuedConnection);
    return QWidget::eventFilter(watched, event);
}

void OverviewWidget::requestPicture()
{
    m_job.request();
}

void OverviewWidget::setCurrent(int layer, int head)
{
    if (layer == m_currentLayer && head == m_currentHead)
        return;
    m_currentLayer = layer;
    m_currentHead = head;
    update();
}

void OverviewWidget::setColourRange(render::ColourRange range)
{
    if (range == m_colourRange)
        return;
    m_colourRange = range;
    m_enlarged.reset();
    requestPicture();
}

render::OverviewStyle OverviewWidget::figureStyle() const
{
    render::OverviewStyle style;
    style.font = font();
    style.palette = palette();
    style.colourRange = m_colourRange;
    return style;
}

LatestJob<std::shared_ptr<OverviewWidget::Picture>>::Job OverviewWidget::preparing()
{
    GridJob build;
    if (m_gridWanted) {
        build = m_source ? m_source() : GridJob();
        if (!build) {
            m_grid.reset();
            m_painter.reset();
            m_image = QImage();
            m_picture.reset();
            update();
            return {};
        }
    } else if (!m_grid) {
        return {};
    }
    m_gridWanted = false;
    const QSize size = this->size();
    const double dpr = devicePixelRatioF();
    const render::OverviewStyle style = figureStyle();
    // The picture shown, when it is of the same frame, keeps the layers the new grid did not change.
    const bool sameFrame = m_picture && m_picture->size == size && m_picture->dpr == dpr
        && m_picture->colourRange == style.colourRange && m_picture->styleGeneration == m_styleGeneration;
    std::shared_ptr<const Picture> previous = sameFrame ? m_picture : nullptr;
    return [build = std::move(build), grid = m_grid, style, size, dpr, previous, generation = m_styleGeneration]() mutable {
        auto picture = std::make_shared<Picture>();
        picture->size = size;
        picture->dpr = dpr;
        picture->colourRange = style.colourRange;
        picture->styleGeneration = generation;
        try {
            picture->grid = build ? build() : grid;
            if (!picture->grid)
                picture->grid = std::make_shared<const render::AttentionGrid>();
            picture->built = bool(build);
            if (size.isEmpty())
                return picture;
            const render::OverviewPainter painter(picture->grid, style);
            const std::vector<bool> changed = previous ? changedLayers(*previous->grid, *picture->grid) : std::vector<bool>();
            const QRectF target(QPointF(0, 0), QSizeF(size));
            if (!changed.empty()) {
                picture->image = previous->image.copy();
                QPainter p(&picture->image);
                painter.paintLayers(&p, target, changed);
            } else {
                QImage image(size * dpr, QImage::Format_ARGB32_Premultiplied);
                image.setDevicePixelRatio(dpr);
                image.fill(style.palette.color(QPalette::Base));
                QPainter p(&image);
                painter.paint(&p, target);
                p.end();
                picture->image = std::move(image);
            }
        } catch (const std::exception&) {
            picture->image = QImage();  // out of memory: the grid without its picture
        }
        return picture;
    };
}

void OverviewWidget::prepared(std::shared_ptr<Picture> picture)
{
    const bool newGrid = picture->grid != m_shownGrid;
    if (picture->built)
        m_outdated = false;
    m_shownGrid = picture->grid;
    m_grid = picture->grid;
    m_image = picture->image;
    m_picture = picture->image.isNull() ? nullptr : std::move(picture);
    m_painter = m_grid ? std::make_unique<render::OverviewPainter>(m_grid, figureStyle()) : nullptr;
    m_enlarged.reset();
    if (m_hover && (!m_grid || m_hover->first >= m_grid->layers || m_hover->second >= m_grid->heads))
        m_hover.reset();
    update();
    if (newGrid)
        emit gridChanged(m_grid);
}

void OverviewWidget::finishPreparing()
{
    m_job.finish();
}

QRectF OverviewWidget::cellRect(int layer, int head) const
{
    return m_painter ? m_painter->cellRect(layer, head, QRectF(rect())) : QRectF();
}

QString OverviewWidget::cellText(int layer, int head) const
{
    if (!m_grid || layer < 0 || head < 0 || layer >= m_grid->layers || head >= m_grid->heads)
        return {};
    const core::HeadDescriptors& d = m_grid->descriptor(layer, head);
    QString descriptors = render::headDescriptorText(d);
    if (const QString detection = render::headDetectionText(*m_grid, layer, head); !detection.isEmpty())
        descriptors += QLatin1Char('\n') + tr("%1 (on a random sequence said twice)").arg(detection);
    return tr("Layer %1 · head %2: %3\n%4\nClick to show this head.")
        .arg(layer + 1)
        .arg(head + 1)
        .arg(render::headCellTitle(*m_grid, layer, head), descriptors);
}

void OverviewWidget::setHover(std::optional<std::pair<int, int>> cell)
{
    if (cell == m_hover)
        return;
    m_hover = cell;
    m_enlarged.reset();
    update();
}

void OverviewWidget::paintEnlarged(QPainter* p, int layer, int head)
{
    const QRectF cell = cellRect(layer, head);
    if (cell.isEmpty())
        return;
    if (!m_enlarged) {
        render::HeatmapStyle style = m_painter->cellStyle();
        style.font = font();
        style.fontScale = 0.0;
        style.showTitle = true;
        style.showLegend = true;
        style.cellsAsImage = false;
        style.annotate = false;
        m_enlarged = std::make_unique<render::HeatmapRenderer>(m_painter->labelledCellData(layer, head), style);
    }
    // About three cells wide, at least 320 pixels, inside the widget, centred on the cell where it can be.
    const QFontMetricsF fm(font());
    QStringList lines{render::headDescriptorText(m_grid->descriptor(layer, head))};
    if (const QString detection = render::headDetectionText(*m_grid, layer, head); !detection.isEmpty())
        lines << detection;
    const double textH = lines.size() * fm.height() + 8;
    const double w = std::min(std::max(320.0, 3.4 * cell.width()), width() - 8.0);
    const double h = std::min(0.9 * w + textH, height() - 8.0);
    QRectF box(0, 0, w, h);
    box.moveCenter(cell.center());
    box.moveLeft(std::clamp(box.left(), 4.0, std::max(4.0, width() - 4.0 - box.width())));
    box.moveTop(std::clamp(box.top(), 4.0, std::max(4.0, height() - 4.0 - box.height())));
    p->save();
    p->setPen(QPen(palette().color(QPalette::Mid), 1));
    p->setBrush(palette().color(QPalette::Base));
    p->drawRect(box);
    const QRectF figure(box.left() + 1, box.top() + 1, box.width() - 2, box.height() - textH - 1);
    m_enlarged->paint(p, figure);
    p->setPen(palette().color(QPalette::Text));
    for (int i = 0; i < lines.size(); ++i)
        p->drawText(QRectF(box.left() + 6, figure.bottom() + 4 + i * fm.height(), box.width() - 12, fm.height()),
                    Qt::AlignCenter | Qt::TextSingleLine, fm.elidedText(lines[i], Qt::ElideRight, box.width() - 12));
    p->restore();
}

void OverviewWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_grid || m_outdated) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   m_document->error().isEmpty() ? tr("Computing…") : tr("Nothing to show yet"));
        return;
    }
    if (!m_image.isNull()) {
        // A picture of another size (the dock is being resized) is stretched until the new one comes.
        p.setRenderHint(QPainter::SmoothPixmapTransform);
        p.drawImage(QRectF(rect()), m_image);
    }
    const render::OverviewPainter::Outline current =
        m_painter ? m_painter->outline(m_currentLayer, m_currentHead, QRectF(rect())) : render::OverviewPainter::Outline{};
    if (!current.rect.isEmpty()) {
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(palette().color(QPalette::Highlight), current.width));
        p.drawRect(current.rect);
    }
    if (m_hover)
        paintEnlarged(&p, m_hover->first, m_hover->second);
}

bool OverviewWidget::event(QEvent* event)
{
    if (m_stale && mayHaveAppeared(event))
        QMetaObject::invokeMethod(this, [this] { if (m_stale) refresh(); }, Qt::QueuedConnection);
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const auto cell = m_painter && !m_outdated ? m_painter->cellAt(QPointF(help->pos()), QRectF(rect())) : std::nullopt;
        // The enlarged cell says the same; a tooltip over it would only hide it.
        if (cell && cell != m_hover)
            QToolTip::showText(help->globalPos(), cellText(cell->first, cell->second), this,
                               cellRect(cell->first, cell->second).toAlignedRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void OverviewWidget::mouseMoveEvent(QMouseEvent* event)
{
    setHover(m_painter && !m_outdated ? m_painter->cellAt(event->position(), QRectF(rect())) : std::nullopt);
    QWidget::mouseMoveEvent(event);
}

void OverviewWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_painter && !m_outdated) {
        if (const auto cell = m_painter->cellAt(event->position(), QRectF(rect()))) {
            setCurrent(cell->first, cell->second);
            emit cellChosen(cell->first, cell->second);
            event->accept();
            return;
        }
    }
    QWidget::mousePressEvent(event);
}

void OverviewWidget::keyPressEvent(QKeyEvent* event)
{
    // The arrows move the outlined cell, Enter shows it.
    if (m_grid && !m_outdated && m_grid->layers > 0 && m_grid->heads > 0) {
        int layer = std::max(0, m_currentLayer), head = std::max(0, m_currentHead);
        switch (event->key()) {
        case Qt::Key_Left: head = std::max(0, head - 1); break;
        case Qt::Key_Right: head = std::min(m_grid->heads - 1, head + 1); break;
        case Qt::Key_Up: layer = std::max(0, layer - 1); break;
        case Qt::Key_Down: layer = std::min(m_grid->layers - 1, layer + 1); break;
        case Qt::Key_Return:
        case Qt::Key_Enter: emit cellChosen(layer, head); return;
        default: QWidget::keyPressEvent(event); return;
        }
        setCurrent(layer, head);
        return;
    }
    QWidget::keyPressEvent(event);
}

void OverviewWidget::leaveEvent(QEvent* event)
{
    setHover(std::nullopt);
    QWidget::leaveEvent(event);
}

void OverviewWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_grid)
        m_painter = std::make_unique<render::OverviewPainter>(m_grid, figureStyle());
    m_enlarged.reset();
    requestPicture();
}

void OverviewWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        setAccessibleName(tr("Overview of every layer and head"));
        ++m_styleGeneration;  // every label is another text
        requestPicture();
    } else if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        if (m_grid)
            m_painter = std::make_unique<render::OverviewPainter>(m_grid, figureStyle());
        ++m_styleGeneration;
        requestPicture();
    }
    QWidget::changeEvent(event);
}

QSize OverviewWidget::sizeHint() const
{
    return m_painter ? m_painter->preferredSize().boundedTo(QSize(900, 700)) : QSize(420, 320);
}

QSize OverviewWidget::minimumSizeHint() const
{
    return QSize(200, 160);
}

}  // namespace ui
