#include "ui/views/heatmap/heatmapcanvas.h"

#include "ui/document/document.h"
#include "ui/render/stepfigure.h"
#include "ui/document/viewstate.h"

#include "core/tensor/pooling.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ui {

namespace {

/** Decimals the cells are printed with: none when every value is a whole number (the worked example's
 *  scores read "16", not "16.00"), else two. */
int annotationPrecision(const core::Matrix& values)
{
    const double* v = values.data();
    for (Eigen::Index i = 0, n = values.size(); i < n; ++i)
        if (!std::isfinite(v[i]) || v[i] != std::round(v[i]) || std::abs(v[i]) >= 1e6)
            return 2;
    return 0;
}

}  // namespace

HeatmapCanvas::HeatmapCanvas(Document* document, ViewState* viewState, QWidget* parent)
    : QWidget(parent), m_document(document), m_viewState(viewState),
      m_prepared([this] { return preparing(); },
                 [this](std::shared_ptr<render::HeatmapRenderer> r) { prepared(std::move(r)); },
                 [this](std::shared_ptr<render::HeatmapRenderer> stale) {
                     if (stale)
                         m_spareValues = stale->takeValues();
                 })
{
    setObjectName(QStringLiteral("heatmapCanvas"));
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setAccessibleName(tr("Attention heatmap"));

    connect(document, &Document::traceChanged, this, &HeatmapCanvas::rebuild);
    connect(document, &Document::errorChanged, this, &HeatmapCanvas::rebuild);
    connect(viewState, &ViewState::heatmapStepChanged, this, &HeatmapCanvas::rebuild);
    connect(viewState, &ViewState::headChanged, this, &HeatmapCanvas::rebuild);
    // The hovered cell is announced again after each edit (its derivation has new numbers): the same highlight is
    // no reason to repaint.
    connect(viewState, &ViewState::selectedQueryChanged, this, [this] { updateStyle(Repaint::IfChanged); });
    connect(viewState, &ViewState::hoveredChanged, this, [this] { updateStyle(Repaint::IfChanged); });
    rebuild();
}

HeatmapCanvas::~HeatmapCanvas() = default;

render::ColormapId HeatmapCanvas::colormap() const
{
    return m_colormap.value_or(render::defaultColormap(m_viewState->heatmapStep()));
}

void HeatmapCanvas::setColormapChoice(std::optional<render::ColormapId> id)
{
    if (id == m_colormap)
        return;
    m_colormap = id;
    updateStyle();
}

void HeatmapCanvas::setAnnotate(bool on)
{
    if (on == m_annotate)
        return;
    m_annotate = on;
    updateStyle();
}

void HeatmapCanvas::setColourRange(render::ColourRange range)
{
    if (range == m_colourRange)
        return;
    m_colourRange = range;
    updateStyle();
    emit figureChanged();  // the legend's width may change
}

void HeatmapCanvas::setZoom(double zoom)
{
    m_zoom = std::max(0.0, zoom);
    updateGeometry();
    update();
}

double HeatmapCanvas::effectiveZoom() const
{
    if (m_zoom > 0 || !m_renderer)
        return m_zoom > 0 ? m_zoom : 1.0;
    const QSize preferred = m_renderer->preferredSize();
    return std::min(double(width()) / preferred.width(), double(height()) / preferred.height());
}

render::HeatmapStyle HeatmapCanvas::baseStyle() const
{
    render::HeatmapStyle style;
    style.colormap = colormap();
    style.colourRange = m_colourRange;
    style.annotate = m_annotate;
    style.precision = m_renderer ? annotationPrecision(m_renderer->data().values) : 2;
    style.font = font();
    style.palette = palette();
    return style;
}

render::HeatmapStyle HeatmapCanvas::exportStyle() const
{
    return baseStyle();
}

bool HeatmapCanvas::rowsAreTokens() const
{
    using core::Step;
    const Step s = m_viewState->heatmapStep();
    return s != Step::WeightQuery && s != Step::WeightKey && s != Step::WeightValue && s != Step::WeightOutput;
}

QRectF HeatmapCanvas::cellRect(int row, int col) const
{
    return m_renderer ? m_renderer->cellRect(row, col, QRectF(rect())) : QRectF();
}

QString HeatmapCanvas::emptyText() const
{
    if (!m_document->error().isEmpty())
        return m_document->error();
    if (!m_document->trace())
        return tr("Computing…");
    return {};
}

void HeatmapCanvas::rebuild()
{
    const auto trace = m_document->trace();
    if (!m_document->error().isEmpty() || !trace || trace->n() == 0) {
        m_prepared.cancel();
        m_renderer.reset();
        setHoverCell(std::nullopt);
        updateStyle();
        updateGeometry();
        emit figureChanged();
        return;
    }
    const core::Step step = m_viewState->heatmapStep();
    const int head = std::clamp(m_viewState->head(), 0, std::max(0, trace->headCount() - 1));
    const auto [rows, cols] = trace->stepShape(step, head);
    if (Eigen::Index(rows) * cols > preparedOffThreadCells) {
        // Copying, ranging and colouring a long sequence's matrix would block the GUI thread for tens of
        // milliseconds: a worker prepares the figure while the previous one stays shown.
        m_prepared.request();
        return;
    }
    m_prepared.cancel();
    core::Matrix reuse = m_renderer ? m_renderer->takeValues() : std::move(m_spareValues);
    render::HeatmapData data = heatmapData(*trace, step, head, std::move(reuse));
    if (m_renderer) {
        const bool sameLayout = m_renderer->setData(std::move(data));
        showFigure(std::move(m_renderer), sameLayout);
    } else {
        showFigure(std::make_shared<render::HeatmapRenderer>(std::move(data), baseStyle()));
    }
}

LatestJob<std::shared_ptr<render::HeatmapRenderer>>::Job HeatmapCanvas::preparing()
{
    const auto trace = m_document->trace();
    if (!trace)
        return {};
    const core::Step step = m_viewState->heatmapStep();
    const int head = std::clamp(m_viewState->head(), 0, std::max(0, trace->headCount() - 1));
    render::HeatmapStyle style = baseStyle();
    const QRectF target(rect());
    const double dpr = devicePixelRatioF();
    // The figure shown is laid out as the new one will be (same shape and labels after an edit): its image
    // size says how finely to take the block means.
    const QSize pool = m_renderer ? m_renderer->pooledCellLimit(target, dpr) : QSize();
    return [trace, step, head, style, target, dpr, pool, reuse = std::move(m_spareValues)]() mutable {
        try {
            // The values (128 MiB at 4096 tokens) are copied and their block means taken in one pass
            // over the trace's matrix, on two threads (the pool's others may be busy with thumbnails).
            core::Matrix means;
            double factor = 1.0;
            const core::Matrix* stored = trace->storedMatrix(step, head, &factor);
            render::HeatmapData data;
            if (stored && !pool.isEmpty()) {
                means = core::pooledWithCopy(*stored, pool.height(), pool.width(), factor, reuse, 2);
                data = heatmapFrame(*trace, step, head, reuse.rows(), reuse.cols());
                data.values = std::move(reuse);
            } else {
                data = heatmapData(*trace, step, head, std::move(reuse));
            }
            auto renderer = std::make_shared<render::HeatmapRenderer>(std::move(data), style);
            renderer->prepare(target, dpr, means);
            return renderer;
        } catch (const std::exception&) {
            return std::shared_ptr<render::HeatmapRenderer>();  // out of memory or threads: the figure stays
        }
    };
}

void HeatmapCanvas::prepared(std::shared_ptr<render::HeatmapRenderer> renderer)
{
    if (!renderer) {
        // The worker ran out of memory: the figure shown stays, and the status bar says why.
        emit figureFailed(tr("Not enough memory to draw the heatmap of %1 tokens; it shows the state before.")
                              .arg(m_document->trace() ? m_document->trace()->n() : 0));
        return;
    }
    if (m_renderer)
        m_spareValues = m_renderer->takeValues();
    showFigure(std::move(renderer));
}

void HeatmapCanvas::finishPreparing()
{
    m_prepared.finish();
}

void HeatmapCanvas::showFigure(std::shared_ptr<render::HeatmapRenderer> renderer, bool sameLayout)
{
    m_renderer = std::move(renderer);
    const auto trace = m_document->trace();
    if (m_hoverCell && trace) {
        const core::Step step = m_viewState->heatmapStep();
        const int head = std::clamp(m_viewState->head(), 0, std::max(0, trace->headCount() - 1));
        core::CellRef ref = *m_hoverCell;
        const auto& values = m_renderer->data().values;
        m_hoverCell.reset();
        if (ref.step == step && ref.head == (core::isPerHead(step) ? head : 0) && ref.row < values.rows()
            && ref.col < values.cols())
            setHoverCell(ref);
        else
            setHoverCell(std::nullopt);
    }
    updateStyle(sameLayout ? Repaint::Values : Repaint::Whole);
    if (!sameLayout)
        updateGeometry();  // the same layout is the same preferred size
    emit figureChanged();
}

void HeatmapCanvas::updateStyle(Repaint repaint)
{
    if (!m_renderer) {
        update();
        return;
    }
    render::HeatmapStyle style = baseStyle();
    const core::Step step = m_viewState->heatmapStep();
    const int head = m_viewState->head();
    const auto sameFigure = [&](const core::CellRef& c) {
        return c.step == step && (!core::isPerHead(step) || c.head == head);
    };
    if (auto hovered = m_viewState->hoveredCell(); hovered && sameFigure(*hovered)) {
        style.highlightRow = hovered->row;
        style.highlightCol = hovered->col;
    } else {
        for (const core::CellRef& source : m_viewState->highlighted()) {
            if (sameFigure(source)) {
                style.highlightRow = source.row;
                style.highlightCol = source.col;
                break;
            }
        }
    }
    style.selectedRow = rowsAreTokens() ? m_viewState->selectedQuery() : -1;
    const bool colours = style.colormap != m_renderer->style().colormap;
    const bool same = style == m_renderer->style();
    // An edit's new values with the style and layout as they were: the labels, title and legend stay as painted.
    const QRect values = repaint == Repaint::Values && same ? m_renderer->valuesRect(QRectF(rect())).toRect() : QRect();
    m_renderer->setStyle(style);
    if (colours)
        emit figureChanged();
    if (!values.isEmpty())
        update(values);
    else if (repaint != Repaint::IfChanged || !same)
        update();
}

void HeatmapCanvas::hoverAt(const QPoint& pos)
{
    const auto trace = m_document->trace();
    const auto cell = m_renderer && trace ? m_renderer->cellAt(QPointF(pos), QRectF(rect())) : std::nullopt;
    if (!cell) {
        setHoverCell(std::nullopt);
        return;
    }
    core::CellRef ref;
    ref.step = m_viewState->heatmapStep();
    ref.head = core::isPerHead(ref.step) ? std::clamp(m_viewState->head(), 0, trace->headCount() - 1) : 0;
    ref.row = cell->first;
    ref.col = cell->second;
    if (m_hoverCell != ref)
        setHoverCell(ref);
}

void HeatmapCanvas::setHoverCell(std::optional<core::CellRef> cell)
{
    const auto trace = m_document->trace();
    if (!cell || !trace) {
        const auto mine = m_hoverCell;
        m_hoverCell.reset();
        m_hoverText.clear();
        if (mine && m_viewState->hoveredCell() == mine)
            m_viewState->setHovered(std::nullopt);
        return;
    }
    m_hoverCell = cell;
    const core::Derivation derivation = core::derive(*trace, *cell);
    m_hoverText = derivationTip(derivation.text());
    if (m_renderer && m_renderer->isMasked(cell->row, cell->col))
        m_hoverText = tr("Masked: key %1 comes after query %2, so it gets no attention.").arg(cell->col + 1).arg(cell->row + 1)
            + QLatin1Char('\n') + m_hoverText;
    m_viewState->setHovered(cell, derivation.sources);
}

bool HeatmapCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        hoverAt(help->pos());
        if (m_hoverCell && !m_hoverText.isEmpty())
            QToolTip::showText(help->globalPos(), m_hoverText, this,
                               cellRect(m_hoverCell->row, m_hoverCell->col).toAlignedRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void HeatmapCanvas::paintEvent(QPaintEvent* event)
{
    QPainter painter(this);
    if (m_renderer) {
        painter.setRenderHint(QPainter::Antialiasing);
        m_renderer->paint(&painter, QRectF(rect()), QRectF(event->rect()));
        return;
    }
    painter.fillRect(rect(), palette().color(QPalette::Base));
    const QRect box = rect().adjusted(width() / 6, 0, -width() / 6, 0);
    QFont heading = font();
    heading.setBold(true);
    heading.setPointSizeF(heading.pointSizeF() * 1.25);
    const QFontMetrics hm(heading);
    const QString title = m_document->error().isEmpty() ? tr("Working") : tr("Nothing to show yet");
    const QString text = emptyText();
    const QRect textRect = painter.fontMetrics().boundingRect(box, Qt::AlignHCenter | Qt::TextWordWrap, text);
    const int top = height() / 2 - (hm.height() + textRect.height()) / 2;
    painter.setPen(palette().color(QPalette::Text));
    painter.setFont(heading);
    painter.drawText(QRect(box.left(), top, box.width(), hm.height()), Qt::AlignHCenter, title);
    painter.setFont(font());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(QRect(box.left(), top + hm.height() + hm.height() / 2, box.width(), textRect.height()),
                     Qt::AlignHCenter | Qt::TextWordWrap, text);
}

void HeatmapCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QString before = m_hoverText;
    hoverAt(event->position().toPoint());
    if (QToolTip::isVisible() && m_hoverText != before) {
        if (m_hoverCell)
            QToolTip::showText(event->globalPosition().toPoint(), m_hoverText, this,
                               cellRect(m_hoverCell->row, m_hoverCell->col).toAlignedRect());
        else
            QToolTip::hideText();
    }
    QWidget::mouseMoveEvent(event);
}

void HeatmapCanvas::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_renderer && rowsAreTokens()) {
        if (auto cell = m_renderer->cellAt(event->position(), QRectF(rect()))) {
            m_viewState->setSelectedQuery(cell->first);
            event->accept();
            return;
        }
    }
    QWidget::mousePressEvent(event);
}

void HeatmapCanvas::leaveEvent(QEvent* event)
{
    setHoverCell(std::nullopt);
    QWidget::leaveEvent(event);
}

void HeatmapCanvas::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        emit zoomRequested(event->angleDelta().y(), event->position().toPoint());
        event->accept();
        return;
    }
    event->ignore();
}

void HeatmapCanvas::keyPressEvent(QKeyEvent* event)
{
    if (m_renderer && rowsAreTokens() && (event->key() == Qt::Key_Up || event->key() == Qt::Key_Down)) {
        const int rows = int(m_renderer->data().values.rows());
        const int step = event->key() == Qt::Key_Up ? -1 : 1;
        m_viewState->setSelectedQuery(std::clamp(m_viewState->selectedQuery() + step, 0, rows - 1));
        return;
    }
    QWidget::keyPressEvent(event);
}

void HeatmapCanvas::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        updateStyle();
        emit figureChanged();
    }
    if (event->type() == QEvent::LanguageChange) {
        // Titles and axis names of the figure are texts of the current language.
        setAccessibleName(tr("Attention heatmap"));
        rebuild();
    }
    QWidget::changeEvent(event);
}

QSize HeatmapCanvas::sizeHint() const
{
    if (!m_renderer)
        return QSize(480, 360);
    const QSize preferred = m_renderer->preferredSize();
    return m_zoom > 0 ? preferred * m_zoom : preferred;
}

QSize HeatmapCanvas::minimumSizeHint() const
{
    return QSize(160, 120);
}

}  // namespace ui
