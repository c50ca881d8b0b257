#include "ui/views/teaching/teachingview.h"

#include "ui/render/cellstyle.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/i18n/language.h"

#include <QKeyEvent>
#include <QPainter>

namespace ui {

TeachingView::TeachingView(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view)
{
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    connect(m_document, &Document::traceChanged, this, &TeachingView::rebuild);
    connect(m_view, &ViewState::selectedQueryChanged, this, &TeachingView::rebuild);
    connect(m_view, &ViewState::headChanged, this, &TeachingView::rebuild);
    // Its title as a window of its own; the window system adds the program's name after it.
    i18n::onLanguageChange(this, [this] { setWindowTitle(tr("Teaching Mode")); });
    rebuild();
}

const Slide* TeachingView::currentSlide() const
{
    return m_index >= 0 && m_index < slideCount() ? &m_slides[std::size_t(m_index)] : nullptr;
}

void TeachingView::rebuild()
{
    const auto trace = m_document->trace();
    m_slides = trace
                   ? buildSlides(*trace, std::clamp(m_view->head(), 0, trace->headCount() - 1), m_view->selectedQuery())
                   : std::vector<Slide>();
    m_index = std::clamp(m_index, 0, std::max(0, slideCount() - 1));
    update();
}

void TeachingView::next()
{
    setSlide(m_index + 1);
}

void TeachingView::previous()
{
    setSlide(m_index - 1);
}

void TeachingView::setSlide(int index)
{
    index = std::clamp(index, 0, std::max(0, slideCount() - 1));
    if (index == m_index)
        return;
    m_index = index;
    update();
    emit slideChanged(index);
}

void TeachingView::setZoom(double zoom)
{
    m_zoom = std::clamp(zoom, 0.5, 3.0);
    update();
}

void TeachingView::zoomBy(double factor)
{
    // The slide shows less than the zoom asked for (and says so): a larger zoom would change nothing,
    // and a smaller one starts from what the slide shows.
    if (factor > 1)
        setZoom(m_shownZoom < m_zoom ? m_zoom : m_zoom * factor);
    else
        setZoom(std::min(m_zoom, m_shownZoom / factor) * factor);
}

void TeachingView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::ZoomIn) ||
        (event->modifiers() & Qt::ControlModifier && event->key() == Qt::Key_Equal)) {
        zoomBy(render::SlidePainter::zoomStep);
        return;
    }
    if (event->matches(QKeySequence::ZoomOut)) {
        zoomBy(1 / render::SlidePainter::zoomStep);
        return;
    }
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
    case Qt::Key_Down:
        next();
        return;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Backspace:
    case Qt::Key_Up:
        previous();
        return;
    case Qt::Key_Home:
        setSlide(0);
        return;
    case Qt::Key_End:
        setSlide(slideCount() - 1);
        return;
    case Qt::Key_Escape:
        emit leaveRequested();
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

void TeachingView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton)
        next();
    else if (event->button() == Qt::RightButton)
        previous();
}

void TeachingView::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier)
        zoomBy(event->angleDelta().y() > 0 ? 1.1 : 1 / 1.1);
}

void TeachingView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        rebuild();
    QWidget::changeEvent(event);
}

void TeachingView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const Slide* slide = currentSlide();
    if (!slide) {
        p.setRenderHint(QPainter::TextAntialiasing);
        p.setPen(palette().color(QPalette::WindowText));
        QFont f = font();
        f.setPixelSize(int(std::max(8.0, std::min(width() / 64.0, height() / 36.0)) * m_zoom * 1.4));
        p.setFont(f);
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   m_document->error().isEmpty() ? tr("Computing…") : m_document->error());
        return;
    }
    render::SlidePainter painter(*slide, font(), slideColors());
    painter.setPage(m_index + 1, slideCount());
    painter.setZoom(m_zoom);
    painter.paint(p, QRectF(rect()));
    m_drawn = painter.drawn();
    m_shownZoom = painter.shownZoom();
}

render::SlideColors TeachingView::slideColors() const
{
    const QPalette& pal = palette();
    render::SlideColors colors;
    colors.background = pal.color(QPalette::Base);
    colors.text = pal.color(QPalette::WindowText);
    colors.dim = pal.color(QPalette::PlaceholderText);
    colors.accent = pal.color(QPalette::Highlight);
    colors.highlight = pal.color(QPalette::Highlight);
    colors.masked = maskedCellColor(colors.background);  // as the tables show a masked cell
    return colors;
}

} // namespace ui
