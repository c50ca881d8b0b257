#include "slidepainter.h"

#include "atomicwrite.h"

#include "displaynumber.h"

#include <QFontMetricsF>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <optional>

namespace render {

QString slideNumber(double v, int decimals)
{
    decimals = std::clamp(decimals, 0, 17);
    QString s = displayNumber(v, 'f', decimals, Minus::Typographic);
    const QString point = QLocale().decimalPoint();
    if (decimals > 0 && std::isfinite(v) && s.contains(point)) {
        // Trailing zeros of the mantissa only: "7e+299" from "7.00e+299", and "1e+300" stays itself.
        const qsizetype e = s.indexOf(QLatin1Char('e'));
        QString mantissa = s.left(e), exponent = e < 0 ? QString() : s.mid(e);
        while (mantissa.endsWith(QLatin1Char('0')))
            mantissa.chop(1);
        if (mantissa.endsWith(point))
            mantissa.chop(point.size());
        s = mantissa + exponent;
    }
    return s;
}

/** A matrix as a slide shows it: its shown size and the sizes of its parts. */
struct MatrixGeometry {
    int rows = 0, cols = 0; ///< shown (cut) sizes
    bool moreRows = false, moreCols = false;
    double cellW = 0, cellH = 0, labelW = 0, labelGap = 0, headerH = 0, nameH = 0;
    double bodyW() const { return (cols + (moreCols ? 1 : 0)) * cellW; }
    QSizeF size() const { return {labelW + bodyW(), nameH + headerH + (rows + (moreRows ? 1 : 0)) * cellH}; }
};

/** The fonts of a slide's matrices. */
struct MatrixFonts {
    QFont cells, labels, name;
};

namespace {

/** Rows and columns shown before a matrix is cut with "…". */
constexpr int shownCells = 10;
/** Below this scale a slide's matrices show fewer columns (down to four) to be drawn larger. */
constexpr double readableScale = 0.5;

QFont sized(const QFont& base, double pixels)
{
    QFont f = base;
    f.setPixelSize(std::max(4, int(std::lround(pixels))));
    return f;
}

/** The geometry of m with at most maxRows rows and maxCols columns (shownCells when it keeps its
 *  columns and keep), the rest cut with "…" and "⋮". */
MatrixGeometry measure(const SlideMatrix& m, const MatrixFonts& f, const QPaintDevice* device, int decimals,
                       int maxCols, int maxRows, bool keep)
{
    MatrixGeometry g;
    g.rows = int(std::min<Eigen::Index>(m.values.rows(), maxRows));
    if (m.keepColumns && keep)
        maxCols = shownCells;
    g.cols = int(std::min<Eigen::Index>(m.values.cols(), maxCols));
    g.moreRows = m.values.rows() > maxRows;
    g.moreCols = m.values.cols() > maxCols;
    const QFontMetricsF fm(f.cells, device), fl(f.labels, device), fn(f.name, device);
    double widest = fm.horizontalAdvance(QStringLiteral("0.00"));
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            widest = std::max(widest, fm.horizontalAdvance(slideNumber(m.values(r, c), decimals)));
    for (int c = 0; c < g.cols; ++c)
        widest = std::max(widest, fl.horizontalAdvance(m.colLabels.value(c)));
    g.cellW = widest + fm.height() * 0.9;
    g.cellH = fm.height() * 1.6;
    // The name stands over the body: a narrow matrix is widened to carry it.
    const double nameW = fn.horizontalAdvance(m.name) + fm.height() * 0.5;
    if (g.bodyW() < nameW && g.cols + (g.moreCols ? 1 : 0) > 0)
        g.cellW = nameW / (g.cols + (g.moreCols ? 1 : 0));
    for (int r = 0; r < g.rows; ++r)
        g.labelW = std::max(g.labelW, fl.horizontalAdvance(m.rowLabels.value(r)));
    g.labelGap = fm.height() * 0.7; // between a row label and the bracket
    g.labelW += g.labelW > 0 ? g.labelGap : 0;
    g.headerH = m.colLabels.isEmpty() ? 0 : fl.height() * 1.3;
    g.nameH = fn.height() * 1.5;
    return g;
}

/** A line of arithmetic cut after " = " and " + ", each piece keeping its separator. */
QStringList pieces(const QString& line)
{
    QStringList out;
    qsizetype start = 0;
    for (qsizetype i = 0; i + 2 < line.size(); ++i) {
        if (line[i] == QLatin1Char(' ') && line[i + 2] == QLatin1Char(' ') &&
            (line[i + 1] == QLatin1Char('=') || line[i + 1] == QLatin1Char('+'))) {
            out << line.mid(start, i + 2 - start);
            start = i + 2;
            i += 1;
        }
    }
    out << line.mid(start);
    return out;
}

/** line in rows no wider than width where it can be cut; rows after the first are indented. */
QStringList wrap(const QString& line, const QFontMetricsF& fm, double width)
{
    static const QString indent = QStringLiteral("    ");
    static const QRegularExpression trailing(QStringLiteral("\\s+$"));
    // Every row but the first keeps its indent: the middle rows of a line of three once lost theirs.
    const auto shown = [](const QString& row) { return QString(row).remove(trailing); };
    QStringList rows;
    QString current;
    for (const QString& piece : pieces(line)) {
        const QString candidate = current + piece;
        if (current.trimmed().isEmpty() || fm.horizontalAdvance(shown(candidate)) <= width) {
            current = candidate;
        } else {
            rows << shown(current);
            current = indent + piece.trimmed() + (piece.endsWith(QLatin1Char(' ')) ? QStringLiteral(" ") : QString());
        }
    }
    rows << shown(current);
    return rows;
}

} // namespace

struct SlidePainter::Lines {
    QFont font;
    int columns = 1;
    double rowH = 0, columnW = 0;
    std::vector<QStringList> columnRows; ///< the rows of each column
    int breaks = 0;                      ///< rows more than lines: where lines were broken
    bool fits = false;
    double height() const
    {
        qsizetype tallest = 0;
        for (const QStringList& c : columnRows)
            tallest = std::max(tallest, c.size());
        return double(tallest) * rowH;
    }
};

SlidePainter::SlidePainter(const Slide& slide, const QFont& base, const SlideColors& colors)
    : m_slide(slide), m_base(base), m_colors(colors)
{
}

void SlidePainter::setPage(int index, int count)
{
    m_page = index;
    m_pageCount = count;
}

void SlidePainter::setZoom(double zoom)
{
    m_zoom = zoom;
}

void SlidePainter::text(QPainter& p, const QRectF& box, int flags, const QString& s)
{
    const QFontMetricsF fm(p.font(), p.device());
    bool fits = true;
    if (flags & Qt::TextWordWrap) {
        const QRectF needed = fm.boundingRect(box, flags, s);
        fits = needed.width() <= box.width() + 0.5 && needed.height() <= box.height() + 0.5;
    } else {
        fits = fm.horizontalAdvance(s) <= box.width() + 0.5 && fm.height() <= box.height() + 0.5;
    }
    if (!m_dry)
        p.drawText(box, flags, s);
    const QRectF shown = (p.worldTransform() * m_toArea).mapRect(box);
    const double size = p.font().pixelSize() * (box.height() > 0 ? shown.height() / box.height() : 1.0);
    m_drawn.push_back({s, shown, fits, m_part, size});
}

void SlidePainter::fittedLine(QPainter& p, QFont font, const QRectF& box, int flags, const QString& s)
{
    const double full = font.pixelSize();
    for (double f = 1.0; f > 0.55; f -= 0.05) {
        font.setPixelSize(std::max(4, int(full * f)));
        if (QFontMetricsF(font, p.device()).horizontalAdvance(s) <= box.width())
            break;
    }
    p.setFont(font);
    text(p, box, flags, s);
}

/** The matrices of a slide laid out: each one's geometry, the operators' widths, the rows of matrices and the scale
 *  that fits them. */
struct SlidePainter::MatrixLayout {
    MatrixFonts fonts;
    QFont operators;
    const QStringList* operatorTexts = nullptr;
    std::vector<MatrixGeometry> geoms;
    std::vector<double> opWidths;
    std::vector<std::pair<std::size_t, std::size_t>> rows;  ///< [first, last) of each row of matrices
    double scale = 0, rowGap = 0, arrowGap = 0;

    /** The operator a row that starts at first continues the row above with ("= scores"); empty for none. */
    QString joinedBy(std::size_t first) const
    {
        return first > 0 && first - 1 < opWidths.size() ? (*operatorTexts)[qsizetype(first - 1)] : QString();
    }
    /** An arrow would point from nothing at the start of a row: it points down between the two rows instead. */
    bool arrowAbove(std::size_t first) const { return joinedBy(first).contains(QChar(0x2192)); }
    double gapAbove(std::size_t first) const { return arrowAbove(first) ? arrowGap : rowGap; }
    /** The width of matrices [first, last) with the operators between them (and the one before first when the row
     *  continues another), and their height. */
    QSizeF rowSize(std::size_t first, std::size_t last) const
    {
        double width = !joinedBy(first).isEmpty() && !arrowAbove(first) ? opWidths[first - 1] : 0, height = 0;
        for (std::size_t i = first; i < last; ++i) {
            width += geoms[i].size().width() + (i + 1 < last && i < opWidths.size() ? opWidths[i] : 0);
            height = std::max(height, geoms[i].size().height());
        }
        return QSizeF(width, height);
    }
    /** The scale at which rows fit width × maxHeight, at most 1. */
    double scaleOf(const std::vector<std::pair<std::size_t, std::size_t>>& rows, double width, double maxHeight) const
    {
        double widest = 0, height = 0;
        for (const auto& [first, last] : rows) {
            const QSizeF size = rowSize(first, last);
            widest = std::max(widest, size.width());
            height += size.height() + (first > 0 ? gapAbove(first) : 0);
        }
        return std::min({1.0, width / std::max(widest, 1.0), maxHeight / std::max(height, 1.0)});
    }
};

SlidePainter::MatrixLayout SlidePainter::layOutMatrices(QPainter& p, const QRectF& area, double maxHeight, double unit) const
{
    MatrixLayout l;
    l.fonts.cells = sized(m_base, unit * 1.15);
    l.fonts.labels = sized(m_base, unit * 0.9);
    l.fonts.name = l.fonts.cells;
    l.fonts.name.setBold(true);
    l.operators = sized(m_base, unit * 1.6);
    l.operators.setItalic(true);
    l.operatorTexts = &m_slide.operators;
    const QFontMetricsF ops(l.operators, p.device());
    for (const QString& op : m_slide.operators)
        l.opWidths.push_back(std::max(unit * 3, ops.horizontalAdvance(op) + unit * 1.5));
    l.rowGap = unit * 1.2;
    l.arrowGap = std::max(l.rowGap, ops.height() * 1.2);

    const std::size_t count = m_slide.matrices.size();
    // The matrices with at most maxCols columns and maxRows rows each: their geometry, then one row of them, or two
    // when that draws them larger (wide slides use the room below): the split that gives the largest scale, the
    // second row starting with the operator that joins them (or below the arrow that does).
    const auto tryCells = [&](int maxCols, int maxRows, bool keep) {
        l.geoms.clear();
        for (std::size_t i = 0; i < count; ++i) {
            const SlideMatrix& m = m_slide.matrices[i];
            // Cut as well: a matrix taller than all the others (Kᵀ of a large d_k beside n × n scores) to their height.
            Eigen::Index others = 0;
            for (std::size_t j = 0; j < count; ++j)
                if (j != i)
                    others = std::max(others, std::min<Eigen::Index>(m_slide.matrices[j].values.rows(), maxRows));
            const bool cut = maxCols < shownCells && others > 0 && !m.keepRows;
            const int rows = cut ? int(others) : maxRows;
            l.geoms.push_back(measure(m, l.fonts, p.device(), m_slide.decimals, maxCols, rows, keep));
        }
        l.rows = {{0, count}};
        l.scale = l.scaleOf(l.rows, area.width(), maxHeight);
        const double oneRow = l.scale;
        double best = l.scale;  // the scale, a little less for a split between two matrices side by side
        for (std::size_t split = 1; split < count && oneRow < 0.75; ++split) {
            const std::vector<std::pair<std::size_t, std::size_t>> two{{0, split}, {split, count}};
            // Rather at an operator ("= scores" starts the second row) than between two matrices side by side.
            const bool atOperator = split - 1 < l.opWidths.size() && !m_slide.operators[qsizetype(split - 1)].isEmpty();
            const double s = l.scaleOf(two, area.width(), maxHeight);
            if (const double score = s * (atOperator ? 1.0 : 0.9); score > best && s > oneRow * 1.15) {
                l.rows = two;
                l.scale = s;
                best = score;
            }
        }
    };
    if (m_zoomBase.matrixScale > 0) {
        // Zoomed in: as large as at zoom 1 times the zoom, showing fewer rows and columns (down to two) for it; rows
        // that are summed are not cut to the height of the matrices beside them.
        for (int cells = shownCells; cells >= 2; --cells) {
            tryCells(cells, cells, cells == shownCells);
            if (l.scale >= m_zoomBase.matrixScale - 1e-9)
                break;
        }
        return l;
    }
    // Matrices too wide to read even so show fewer columns before their "…".
    for (int maxCols = shownCells; maxCols >= 4; maxCols -= 2) {
        tryCells(maxCols, shownCells, true);
        if (l.scale >= readableScale)
            break;
    }
    return l;
}

void SlidePainter::paintMatrix(QPainter& p, const SlideMatrix& m, const MatrixGeometry& g, const MatrixFonts& fonts,
                               double x, double y0)
{
    const double left = x + g.labelW;
    const double top = y0 + g.nameH + g.headerH;

    p.setFont(fonts.name);
    p.setPen(m_colors.text);
    text(p, QRectF(left, y0, g.bodyW(), g.nameH), Qt::AlignCenter, m.name);

    // The tokens and indices along the sides, as dark as the numbers: read from the back of a room too.
    p.setFont(fonts.labels);
    p.setPen(m_colors.text);
    for (int c = 0; c < g.cols && c < m.colLabels.size(); ++c)
        text(p, QRectF(left + c * g.cellW, y0 + g.nameH, g.cellW, g.headerH), Qt::AlignCenter, m.colLabels[c]);
    for (int r = 0; r < g.rows && r < m.rowLabels.size(); ++r)
        text(p, QRectF(x, top + r * g.cellH, g.labelW - g.labelGap, g.cellH), Qt::AlignRight | Qt::AlignVCenter,
             m.rowLabels[r]);

    QColor fill = m_colors.highlight;
    fill.setAlphaF(0.22);
    if (m.highlightRow >= 0 && m.highlightRow < g.rows && !m_dry)
        p.fillRect(QRectF(left, top + m.highlightRow * g.cellH, g.cols * g.cellW, g.cellH), fill);
    if (m.highlightCol >= 0 && m.highlightCol < g.cols && !m_dry)
        p.fillRect(QRectF(left + m.highlightCol * g.cellW, top, g.cellW, g.rows * g.cellH), fill);

    // The cells the causal mask hides: grey and hatched with a few thin lines, their numbers dim.
    QColor hatch = m_colors.dim;
    hatch.setAlphaF(0.3);
    const double spacing = g.cellH / 2.5;
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c)
            if (m.isMasked(r, c) && !m_dry) {
                const QRectF cell(left + c * g.cellW, top + r * g.cellH, g.cellW, g.cellH);
                p.fillRect(cell, m_colors.masked);
                p.save();
                p.setClipRect(cell, Qt::IntersectClip);
                p.setPen(QPen(hatch, std::max(1.0, g.cellH / 30)));
                for (double hx = cell.left() - cell.height(); hx < cell.right(); hx += spacing)
                    p.drawLine(QPointF(hx, cell.bottom()), QPointF(hx + cell.height(), cell.top()));
                p.restore();
            }

    p.setFont(fonts.cells);
    for (int r = 0; r < g.rows; ++r) {
        for (int c = 0; c < g.cols; ++c) {
            p.setPen(m.isMasked(r, c) ? m_colors.dim : m_colors.text);
            text(p, QRectF(left + c * g.cellW, top + r * g.cellH, g.cellW, g.cellH), Qt::AlignCenter,
                 slideNumber(m.values(r, c), m_slide.decimals));
        }
        if (g.moreCols)
            text(p, QRectF(left + g.cols * g.cellW, top + r * g.cellH, g.cellW, g.cellH), Qt::AlignCenter,
                 QStringLiteral("…"));
    }
    p.setPen(m_colors.text);
    if (g.moreRows)
        text(p, QRectF(left, top + g.rows * g.cellH, g.cols * g.cellW, g.cellH), Qt::AlignCenter, QStringLiteral("⋮"));

    // brackets
    const QRectF body(left, top, g.bodyW(), (g.rows + (g.moreRows ? 1 : 0)) * g.cellH);
    p.setPen(QPen(m_colors.text, std::max(1.5, g.cellH / 18)));
    const double b = g.cellW * 0.12;
    const QRectF r = body.adjusted(-2, 2, 2, -2);
    if (!m_dry) {
        p.drawPolyline(
            QPolygonF({QPointF(r.left() + b, r.top()), r.topLeft(), r.bottomLeft(), QPointF(r.left() + b, r.bottom())}));
        p.drawPolyline(QPolygonF(
            {QPointF(r.right() - b, r.top()), r.topRight(), r.bottomRight(), QPointF(r.right() - b, r.bottom())}));
    }
}

double SlidePainter::paintMatrices(QPainter& p, const QRectF& area, double maxHeight, double unit)
{
    if (m_slide.matrices.empty())
        return 0;
    const MatrixLayout l = layOutMatrices(p, area, maxHeight, unit);
    m_matrixScale = l.scale;

    p.save();
    p.translate(area.center().x(), area.top());
    p.scale(l.scale, l.scale);
    double rowTop = 0;
    for (const auto& [first, last] : l.rows) {
        const double tallest = l.rowSize(first, last).height();
        double x = -l.rowSize(first, last).width() / 2;
        p.setPen(m_colors.text);
        p.setFont(l.operators);
        if (l.arrowAbove(first)) {
            const double gap = l.gapAbove(first);
            text(p, QRectF(-l.opWidths[first - 1] / 2, rowTop, l.opWidths[first - 1], gap), Qt::AlignCenter,
                 QString(l.joinedBy(first)).replace(QChar(0x2192), QChar(0x2193)));
            rowTop += gap;
        } else if (first > 0) {
            rowTop += l.rowGap;
            if (!l.joinedBy(first).isEmpty()) { // the operator that carries on from the row above
                text(p, QRectF(x, rowTop, l.opWidths[first - 1], tallest), Qt::AlignCenter, l.joinedBy(first));
                x += l.opWidths[first - 1];
            }
        }
        for (std::size_t i = first; i < last; ++i) {
            const MatrixGeometry& g = l.geoms[i];
            paintMatrix(p, m_slide.matrices[i], g, l.fonts, x, rowTop + (tallest - g.size().height()) / 2);
            x += g.size().width();
            if (i + 1 < last && i < l.opWidths.size()) {
                p.setPen(m_colors.text);
                p.setFont(l.operators);
                text(p, QRectF(x, rowTop, l.opWidths[i], tallest), Qt::AlignCenter, m_slide.operators[qsizetype(i)]);
                x += l.opWidths[i];
            }
        }
        rowTop += tallest;
    }
    p.restore();
    return rowTop * l.scale;
}

SlidePainter::Lines SlidePainter::arithmeticColumns(QPainter& p, const QFont& font, const QStringList& lines,
                                                    int columns, double gap, double width, double height) const
{
    Lines l;
    l.font = font;
    const QFontMetricsF fm(l.font, p.device());
    l.columns = columns;
    l.rowH = fm.height() * 1.25;
    l.columnW = (width - (columns - 1) * gap) / columns;
    std::vector<QStringList> groups;
    int rows = 0;
    bool narrowEnough = true;
    for (const QString& line : lines) {
        groups.push_back(wrap(line, fm, l.columnW));
        rows += int(groups.back().size());
        for (const QString& row : groups.back())
            narrowEnough = narrowEnough && fm.horizontalAdvance(row) <= l.columnW;
    }
    // Whole lines to a column, the first columns taking up to an even share of the rows.
    const int share = (rows + columns - 1) / columns;
    l.columnRows.assign(std::size_t(columns), {});
    std::size_t column = 0;
    for (const QStringList& group : groups) {
        if (column + 1 < l.columnRows.size() && !l.columnRows[column].isEmpty() &&
            l.columnRows[column].size() + group.size() > share)
            ++column;
        l.columnRows[column] << group;
    }
    l.breaks = rows - int(lines.size());
    l.fits = narrowEnough && l.height() <= height;
    return l;
}

SlidePainter::Lines SlidePainter::layoutArithmetic(QPainter& p, QFont font, double width, double height) const
{
    if (m_zoomBase.matrixScale > 0)
        return layoutZoomedArithmetic(p, font, width, height);
    const double full = font.pixelSize();
    const double columnGap = full * 2;
    // Of the layouts that fit, in one column or two, the one that breaks the fewest lines while its
    // text stays at 70 % or more; the same number of breaks: the larger text. None fits: the one
    // column at the smallest size, drawn as it comes.
    Lines best, fallback;
    int bestBreaks = -1;
    for (double f = 1.0; f > 0.5; f -= 0.075) {
        // Nothing further can be chosen once a layout without breaks fits, or below 70 % once one fits
        // (each try wraps every line again; a zoomed slide is laid out at several sizes).
        if (bestBreaks == 0 || (bestBreaks > 0 && f < 0.7))
            break;
        font.setPixelSize(std::max(4, int(full * f)));
        for (int columns = 1; columns <= 2; ++columns) {
            const Lines l = arithmeticColumns(p, font, m_slide.arithmetic, columns, columnGap, width, height);
            if (l.fits && (bestBreaks < 0 || (f >= 0.7 && l.breaks < bestBreaks))) {
                best = l;
                bestBreaks = l.breaks;
            }
            if (columns == 1)
                fallback = l;
        }
    }
    return bestBreaks < 0 ? fallback : best;
}

SlidePainter::Lines SlidePainter::layoutZoomedArithmetic(QPainter& p, QFont font, double width, double height) const
{
    const double columnGap = font.pixelSize() * 2;
    font.setPixelSize(std::max(4, int(std::ceil(font.pixelSize() * m_zoomBase.arithmeticShare))));
    // All the lines, else the first ones and a line that counts the rest; of one column or two, the fewer breaks.
    const QStringList& all = m_slide.arithmetic;
    Lines fallback;
    for (qsizetype kept = all.size(); kept >= 1; --kept) {
        QStringList lines = all.mid(0, kept);
        if (kept < all.size())
            lines << (all.size() - kept == 1 ? tr("… 1 more line: Ctrl − shows it")
                                             : tr("… %1 more lines: Ctrl − shows them").arg(all.size() - kept));
        std::optional<Lines> best;
        for (int columns = 1; columns <= 2; ++columns) {
            Lines l = arithmeticColumns(p, font, lines, columns, columnGap, width, height);
            if (l.fits && (!best || l.breaks < best->breaks))
                best = std::move(l);
            else if (columns == 1)
                fallback = std::move(l);
        }
        if (best)
            return *best;
    }
    return fallback;
}

QFont SlidePainter::monoFont(double unit) const
{
    QFont mono = sized(m_base, unit * 1.05);
    mono.setFamily(QStringLiteral("DejaVu Sans Mono"));
    mono.setStyleHint(QFont::Monospace);
    return mono;
}

void SlidePainter::paintArithmetic(QPainter& p, const QRectF& area, double unit)
{
    if (m_slide.arithmetic.isEmpty())
        return;
    const QFont full = monoFont(unit);
    const Lines l = layoutArithmetic(p, full, area.width(), area.height());
    m_arithmeticShare = double(l.font.pixelSize()) / full.pixelSize();
    p.setFont(l.font);
    p.setPen(m_colors.text);
    const QFontMetricsF fm(l.font, p.device());
    const double columnGap = (area.width() - l.columns * l.columnW) / std::max(1, l.columns - 1);
    for (int c = 0; c < l.columns; ++c) {
        const QStringList& rows = l.columnRows[std::size_t(c)];
        double blockW = 0;
        for (const QString& row : rows)
            blockW = std::max(blockW, fm.horizontalAdvance(row));
        const double columnLeft = area.left() + c * (l.columnW + columnGap);
        const double x = columnLeft + std::max(0.0, (l.columnW - blockW) / 2);
        double y = area.top();
        for (const QString& row : rows) {
            text(p, QRectF(x, y, std::min(blockW, l.columnW), l.rowH), Qt::AlignLeft | Qt::AlignVCenter, row);
            y += l.rowH;
        }
    }
}

void SlidePainter::paint(QPainter& p, const QRectF& area)
{
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    m_toArea = p.worldTransform().inverted();
    p.fillRect(area, m_colors.background);
    if (m_zoom < 1) {
        // Smaller: the slide as it is at 1, scaled about its centre, so that every part shrinks alike.
        p.translate(area.center());
        p.scale(m_zoom, m_zoom);
        p.translate(-area.center());
        m_shownZoom = m_zoom;
        m_zoomBase = {};
        layOut(p, area, 1.0);
    } else {
        m_zoomBase = {};
        m_shownZoom = m_zoom > 1 ? largestZoom(p, area) : 1.0;
        layOut(p, area, m_shownZoom);
    }
    p.restore();
}

double SlidePainter::largestZoom(QPainter& p, const QRectF& area)
{
    // The smallest text of each part: no part may be drawn smaller than a step before (matrices scaled
    // down to make room for larger arithmetic would be).
    auto smallest = [this] {
        std::vector<double> sizes(std::size_t(SlidePart::Arithmetic) + 1, 0.0);
        for (const DrawnText& t : m_drawn) {
            double& s = sizes[std::size_t(t.part)];
            s = s > 0 ? std::min(s, t.size) : t.size;
        }
        return sizes;
    };
    m_dry = true;
    m_zoomBase = {};
    layOut(p, area, 1.0);
    std::vector<double> before = smallest();
    // Larger, each part keeps its size at 1 times the zoom: the matrices leave out rows and columns, the arithmetic
    // lines, to make room.
    const ZoomBase base{m_matrixScale, m_arithmeticShare};
    double shown = 1.0;
    while (shown < m_zoom) {
        // The steps the view zooms by, the last one the wish itself.
        const double next = shown * zoomStep * 1.01 >= m_zoom ? m_zoom : shown * zoomStep;
        m_zoomBase = base;
        layOut(p, area, next);
        const std::vector<double> after = smallest();
        bool smaller = false;
        for (std::size_t i = 0; i < after.size(); ++i)
            smaller = smaller || (before[i] > 0 && after[i] > 0 && after[i] < before[i] - 0.01);
        if (smaller || !laidOutWithin(area))
            break;
        shown = next;
        before = after;
    }
    m_dry = false;
    m_zoomBase = shown > 1 ? base : ZoomBase();
    return shown;
}

bool SlidePainter::laidOutWithin(const QRectF& area) const
{
    constexpr double slack = 0.5; // pixels: boxes that touch do not overlap
    const QRectF inside = area.adjusted(-slack, -slack, slack, slack);
    for (std::size_t i = 0; i < m_drawn.size(); ++i) {
        const DrawnText& a = m_drawn[i];
        if (!a.fits || !inside.contains(a.box))
            return false;
        for (std::size_t j = i + 1; j < m_drawn.size(); ++j) {
            const QRectF both = a.box & m_drawn[j].box;
            if (both.width() > slack && both.height() > slack)
                return false;
        }
    }
    return true;
}

void SlidePainter::layOut(QPainter& p, const QRectF& area, double zoom)
{
    m_drawn.clear();
    m_matrixScale = 1.0;
    const double unit = std::max(6.0, std::min(area.width() / 64.0, area.height() / 36.0)) * zoom; // text height
    const double margin = unit * 2;
    const double width = area.width() - 2 * margin;

    // The bottom line: the page number on the right; on the left, when the wished zoom does not fit,
    // that the slide is as large as it fits.
    const QRectF bottomLine(area.left() + unit, area.bottom() - unit * 2, area.width() - 2 * unit, unit * 1.5);
    p.setFont(sized(m_base, unit * 0.9));
    p.setPen(m_colors.dim);
    if (m_page > 0) {
        m_part = SlidePart::Page;
        text(p, bottomLine.adjusted(bottomLine.width() * 0.75, 0, 0, 0), Qt::AlignRight | Qt::AlignVCenter,
             tr("%1 / %2").arg(m_page).arg(m_pageCount));
    }
    if (zoom < m_zoom && m_zoom > 1) {
        m_part = SlidePart::Note;
        fittedLine(p, p.font(), bottomLine.adjusted(0, 0, -bottomLine.width() * 0.25, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("The largest size at which this slide fits"));
    }

    // The title, then the formula: one line each, smaller until it fits.
    double y = area.top() + margin;
    auto headline = [&](double size, bool bold, const QColor& colour, double height, int align, const QString& s) {
        QFont f = sized(m_base, unit * size);
        f.setBold(bold);
        f.setItalic(!bold);
        p.setPen(colour);
        fittedLine(p, f, QRectF(area.left() + margin, y, width, unit * height), align | Qt::AlignVCenter, s);
        y += unit * 3.2;
    };
    m_part = SlidePart::Title;
    headline(1.8, true, m_colors.text, 2.6, Qt::AlignLeft, m_slide.title);
    m_part = SlidePart::Formula;
    headline(1.6, false, m_colors.accent, 2.4, Qt::AlignHCenter, m_slide.formula);

    // The explanation at the bottom, in plain words: smaller until it fits its three lines.
    const QRectF explanation(area.left() + 2 * margin, area.bottom() - margin - unit * 3.2, area.width() - 4 * margin,
                             unit * 3.2);
    QFont body = sized(m_base, unit * 1.05);
    const int wrapFlags = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;
    for (double f = 1.0; f > 0.6; f -= 0.05) {
        body.setPixelSize(std::max(4, int(unit * 1.05 * f)));
        if (QFontMetricsF(body, p.device()).boundingRect(explanation, wrapFlags, m_slide.explanation).height() <=
            explanation.height())
            break;
    }
    p.setFont(body);
    p.setPen(m_colors.text);
    m_part = SlidePart::Explanation;
    text(p, explanation, wrapFlags, m_slide.explanation);

    // The matrices, then the arithmetic in the room that is left above the explanation.
    const double bottom = explanation.top() - unit * 0.6;
    const double content = bottom - y;
    const double gap = unit * 1.2;
    double matrixRoom = content;
    if (!m_slide.arithmetic.isEmpty()) {
        // The arithmetic as it would be laid out in half the room; the matrices take the rest.
        const double needed = layoutArithmetic(p, monoFont(unit), width, content * 0.5 - gap).height();
        matrixRoom = std::max(content - gap - needed, content * 0.5);
    }
    m_part = SlidePart::Matrices;
    y += paintMatrices(p, QRectF(area.left() + margin, y, width, matrixRoom), matrixRoom, unit) + gap;
    m_part = SlidePart::Arithmetic;
    paintArithmetic(p, QRectF(area.left() + margin, y, width, bottom - y), unit);
}

namespace {

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

} // namespace

bool writeSlideDeck(const std::vector<Slide>& slides, const QString& title, QIODevice* device, QString* error)
{
    if (slides.empty())
        return fail(error, SlidePainter::tr("There are no slides to write"));
    QPdfWriter writer(device);
    writer.setResolution(96);
    // 16 : 9, as a projector shows it: 10 × 5.625 inches, turned to landscape.
    writer.setPageLayout(QPageLayout(QPageSize(QSizeF(142.875, 254), QPageSize::Millimeter), QPageLayout::Landscape,
                                     QMarginsF(0, 0, 0, 0), QPageLayout::Millimeter));
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Attention Explorer"));
    QPainter p;
    if (!p.begin(&writer))
        return fail(error, SlidePainter::tr("The slides could not be painted"));
    const QRectF page(QPointF(0, 0), writer.pageLayout().paintRectPixels(writer.resolution()).size());
    for (std::size_t i = 0; i < slides.size(); ++i) {
        if (i > 0 && !writer.newPage())
            return fail(error, SlidePainter::tr("The slides could not be painted"));
        SlidePainter painter(slides[i], QFont(), SlideColors());
        painter.setPage(int(i) + 1, int(slides.size()));
        painter.paint(p, page);
    }
    if (!p.end())
        return fail(error, SlidePainter::tr("The slides could not be painted"));
    return true;
}

bool writeSlideDeck(const std::vector<Slide>& slides, const QString& title, const QString& path, QString* error)
{
    return writeAtomically(
        path, [&](QIODevice* device, QString* why) { return writeSlideDeck(slides, title, device, why); }, error);
}

} // namespace render
