#include "teachingview.h"

#include "core/derivation.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"

#include <QKeyEvent>
#include <QPainter>
#include <QPainterPath>

namespace ui {

namespace {

/** Rows and columns shown before a matrix is cut with "…". */
constexpr int shownCells = 10;

struct MatrixGeometry {
    int rows = 0, cols = 0;        ///< shown (cut) sizes
    bool moreRows = false, moreCols = false;
    double cellW = 0, cellH = 0, labelW = 0, headerH = 0, nameH = 0;
    QSizeF size() const
    {
        return {labelW + (cols + (moreCols ? 1 : 0)) * cellW, nameH + headerH + (rows + (moreRows ? 1 : 0)) * cellH};
    }
};

QString number(double v)
{
    return QString::fromStdString(core::formatNumber(v, 2));
}

MatrixGeometry measure(const SlideMatrix& m, const QFont& font)
{
    MatrixGeometry g;
    g.rows = int(std::min<Eigen::Index>(m.values.rows(), shownCells));
    g.cols = int(std::min<Eigen::Index>(m.values.cols(), shownCells));
    g.moreRows = m.values.rows() > shownCells;
    g.moreCols = m.values.cols() > shownCells;
    const QFontMetricsF fm(font);
    double widest = fm.horizontalAdvance(QStringLiteral("0.00"));
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            widest = std::max(widest, fm.horizontalAdvance(number(m.values(r, c))));
    for (int c = 0; c < g.cols; ++c)
        widest = std::max(widest, fm.horizontalAdvance(m.colLabels.value(c).left(8)) * 0.8);
    g.cellW = widest + fm.height() * 0.9;
    g.cellH = fm.height() * 1.6;
    for (int r = 0; r < g.rows; ++r)
        g.labelW = std::max(g.labelW, fm.horizontalAdvance(m.rowLabels.value(r).left(12)) * 0.8);
    g.labelW += g.labelW > 0 ? fm.height() * 0.9 : 0;
    g.headerH = m.colLabels.isEmpty() ? 0 : fm.height() * 1.1;
    g.nameH = fm.height() * 1.5;
    return g;
}

void drawMatrix(QPainter& p, const SlideMatrix& m, const MatrixGeometry& g, QPointF at, const QFont& font,
                const QPalette& palette)
{
    QFont small = font;
    small.setPixelSize(std::max(6, int(font.pixelSize() * 0.8)));
    QFont bold = font;
    bold.setBold(true);
    const QColor text = palette.color(QPalette::WindowText);
    const QColor dim = palette.color(QPalette::PlaceholderText);
    const QColor highlight = palette.color(QPalette::Highlight);

    // name above
    p.setFont(bold);
    p.setPen(text);
    const QRectF nameRect(at.x() + g.labelW, at.y(), g.size().width() - g.labelW, g.nameH);
    p.drawText(nameRect, Qt::AlignCenter, m.name);

    const double top = at.y() + g.nameH + g.headerH;
    const double left = at.x() + g.labelW;
    p.setFont(small);
    p.setPen(dim);
    for (int c = 0; c < g.cols; ++c)
        p.drawText(QRectF(left + c * g.cellW, at.y() + g.nameH, g.cellW, g.headerH), Qt::AlignCenter,
                   m.colLabels.value(c).left(8));
    for (int r = 0; r < g.rows; ++r)
        p.drawText(QRectF(at.x(), top + r * g.cellH, g.labelW - 4, g.cellH), Qt::AlignRight | Qt::AlignVCenter,
                   m.rowLabels.value(r).left(12));

    const QRectF body(left, top, (g.cols + (g.moreCols ? 1 : 0)) * g.cellW, (g.rows + (g.moreRows ? 1 : 0)) * g.cellH);
    if (m.highlightRow >= 0 && m.highlightRow < g.rows) {
        QColor fill = highlight;
        fill.setAlphaF(0.22);
        p.fillRect(QRectF(left, top + m.highlightRow * g.cellH, g.cols * g.cellW, g.cellH), fill);
    }
    if (m.highlightCol >= 0 && m.highlightCol < g.cols) {
        QColor fill = highlight;
        fill.setAlphaF(0.22);
        p.fillRect(QRectF(left + m.highlightCol * g.cellW, top, g.cellW, g.rows * g.cellH), fill);
    }
    p.setFont(font);
    for (int r = 0; r < g.rows; ++r) {
        for (int c = 0; c < g.cols; ++c) {
            const bool masked = m.masked && c > r;
            p.setPen(masked ? dim : text);
            p.drawText(QRectF(left + c * g.cellW, top + r * g.cellH, g.cellW, g.cellH), Qt::AlignCenter,
                       number(m.values(r, c)));
        }
        if (g.moreCols)
            p.drawText(QRectF(left + g.cols * g.cellW, top + r * g.cellH, g.cellW, g.cellH), Qt::AlignCenter,
                       QStringLiteral("…"));
    }
    if (g.moreRows)
        p.drawText(QRectF(left, top + g.rows * g.cellH, g.cols * g.cellW, g.cellH), Qt::AlignCenter, QStringLiteral("⋮"));

    // brackets
    QPen pen(text, std::max(1.5, g.cellH / 18));
    p.setPen(pen);
    const double b = g.cellW * 0.12;
    const QRectF r = body.adjusted(-2, 2, 2, -2);
    p.drawPolyline(QPolygonF({QPointF(r.left() + b, r.top()), r.topLeft(), r.bottomLeft(), QPointF(r.left() + b, r.bottom())}));
    p.drawPolyline(QPolygonF({QPointF(r.right() - b, r.top()), r.topRight(), r.bottomRight(), QPointF(r.right() - b, r.bottom())}));
}

}  // namespace

TeachingView::TeachingView(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view)
{
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    connect(m_document, &Document::traceChanged, this, &TeachingView::rebuild);
    connect(m_view, &ViewState::selectedQueryChanged, this, &TeachingView::rebuild);
    connect(m_view, &ViewState::headChanged, this, &TeachingView::rebuild);
    rebuild();
}

const Slide* TeachingView::currentSlide() const
{
    return m_index >= 0 && m_index < slideCount() ? &m_slides[std::size_t(m_index)] : nullptr;
}

void TeachingView::rebuild()
{
    const auto trace = m_document->trace();
    m_slides = trace ? buildSlides(*trace, std::clamp(m_view->head(), 0, trace->headCount() - 1),
                                   m_view->selectedQuery())
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

void TeachingView::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::ZoomIn) || (event->modifiers() & Qt::ControlModifier && event->key() == Qt::Key_Equal)) {
        setZoom(m_zoom * 1.15);
        return;
    }
    if (event->matches(QKeySequence::ZoomOut)) {
        setZoom(m_zoom / 1.15);
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
        setZoom(m_zoom * (event->angleDelta().y() > 0 ? 1.1 : 1 / 1.1));
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
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    const QPalette& pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const double unit = std::max(8.0, std::min(width() / 64.0, height() / 36.0)) * m_zoom;  // base text height
    const double margin = unit * 2;

    const Slide* slide = currentSlide();
    if (!slide) {
        p.setPen(text);
        QFont f = font();
        f.setPixelSize(int(unit * 1.4));
        p.setFont(f);
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   m_document->error().isEmpty() ? tr("Computing…") : m_document->error());
        return;
    }

    QFont title = font();
    title.setPixelSize(int(unit * 1.8));
    title.setBold(true);
    QFont formula = font();
    formula.setPixelSize(int(unit * 1.6));
    formula.setItalic(true);
    QFont body = font();
    body.setPixelSize(int(unit * 1.05));
    QFont cells = font();
    cells.setPixelSize(int(unit * 1.15));

    double y = margin;
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.setFont(body);
    const QString progress = tr("%1 / %2").arg(m_index + 1).arg(slideCount());
    p.drawText(QRectF(0, height() - unit * 2, width() - unit, unit * 1.5), Qt::AlignRight | Qt::AlignVCenter, progress);

    p.setPen(text);
    p.setFont(title);
    const QRectF titleRect(margin, y, width() - 2 * margin, unit * 2.6);
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, slide->title);
    y += unit * 3.2;

    p.setFont(formula);
    p.setPen(pal.color(QPalette::Highlight));
    p.drawText(QRectF(margin, y, width() - 2 * margin, unit * 2.4), Qt::AlignHCenter | Qt::AlignVCenter, slide->formula);
    y += unit * 3.2;

    // matrices, centred in a row, with the operators between them
    std::vector<MatrixGeometry> geoms;
    double total = 0, tallest = 0;
    const double opW = unit * 3;
    for (const auto& m : slide->matrices) {
        geoms.push_back(measure(m, cells));
        total += geoms.back().size().width();
        tallest = std::max(tallest, geoms.back().size().height());
    }
    std::vector<double> opWidths;
    for (const QString& op : slide->operators) {
        opWidths.push_back(std::max(opW, QFontMetricsF(formula).horizontalAdvance(op) + unit * 1.5));
        total += opWidths.back();
    }
    double scale = 1.0;
    const double available = height() - y - margin - unit * (4 + 1.4 * double(std::min<qsizetype>(slide->arithmetic.size(), 8)));
    if (total > width() - 2 * margin || tallest > available)
        scale = std::max(0.35, std::min((width() - 2 * margin) / total, available / std::max(tallest, 1.0)));
    p.save();
    p.translate(width() / 2.0, y);
    p.scale(scale, scale);
    double x = -total / 2;
    for (std::size_t i = 0; i < slide->matrices.size(); ++i) {
        const MatrixGeometry& g = geoms[i];
        drawMatrix(p, slide->matrices[i], g, QPointF(x, (tallest - g.size().height()) / 2), cells, pal);
        x += g.size().width();
        if (i < std::size_t(slide->operators.size())) {
            p.setPen(text);
            p.setFont(formula);
            p.drawText(QRectF(x, 0, opWidths[i], tallest), Qt::AlignCenter, slide->operators[qsizetype(i)]);
            x += opWidths[i];
        }
    }
    p.restore();
    y += tallest * scale + unit * 1.2;

    // the arithmetic, one line each
    QFont mono = body;
    mono.setFamily(QStringLiteral("DejaVu Sans Mono"));
    mono.setStyleHint(QFont::Monospace);
    p.setFont(mono);
    p.setPen(text);
    const QFontMetricsF fm(mono);
    for (const QString& line : slide->arithmetic) {
        if (y + fm.height() > height() - margin - unit * 3)
            break;
        p.drawText(QRectF(margin, y, width() - 2 * margin, fm.height()), Qt::AlignHCenter | Qt::AlignVCenter,
                   fm.elidedText(line, Qt::ElideRight, width() - 2 * margin));
        y += fm.height() * 1.3;
    }

    // the plain-words explanation at the bottom
    p.setFont(body);
    p.setPen(pal.color(QPalette::WindowText));
    const QRectF explanation(margin * 2, height() - margin - unit * 3.2, width() - 4 * margin, unit * 3.2);
    p.drawText(explanation, Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, slide->explanation);
}

}  // namespace ui
