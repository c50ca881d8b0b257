#include "heatmaprenderer.h"

#include "displaynumber.h"

#include "core/tensor/pooling.h"

#include <QCoreApplication>
#include <QFontInfo>
#include <QHash>
#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <vector>
#include <cmath>
#include <limits>

namespace render {

namespace {

enum class ColumnMode { Horizontal, Diagonal, Vertical };

constexpr double kSqrtHalf = 0.70710678118654752440;

std::pair<double, double> defaultRange(const core::Matrix& m, ColormapId id)
{
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    double maxAbs = 0.0;
    const double* v = m.data();
    for (Eigen::Index i = 0, n = m.size(); i < n; ++i) {
        const double x = v[i];
        if (!(x - x == 0.0))  // NaN or infinite
            continue;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        const double a = x < 0.0 ? -x : x;
        maxAbs = a > maxAbs ? a : maxAbs;
    }
    if (isDiverging(id))
        return maxAbs > 0.0 ? std::pair{-maxAbs, maxAbs} : std::pair{-1.0, 1.0};
    if (lo > hi || (lo >= 0.0 && hi <= 1.0))
        return {0.0, 1.0};
    if (lo == hi)
        return {lo - 0.5, hi + 0.5};
    return {lo, hi};
}

std::pair<double, double> chooseRange(const HeatmapData& data, ColormapId id)
{
    if (!data.range || !std::isfinite(data.range->first) || !std::isfinite(data.range->second))
        return defaultRange(data.values, id);
    auto [lo, hi] = *data.range;
    if (lo > hi)
        std::swap(lo, hi);
    if (lo == hi)
        return {lo - 0.5, hi + 0.5};
    return {lo, hi};
}

/** A number as printed in the figure: typographic minus, no "−0". */
QString figureNumber(double v, char format, int precision)
{
    return displayNumber(v, format, precision, Minus::Typographic);
}

QString displayLabel(QString s)
{
    for (QChar& c : s) {
        if (c == QLatin1Char('\n'))
            c = QChar(0x23CE);
        else if (c == QLatin1Char('\t'))
            c = QChar(0x21E5);
        else if (c.category() == QChar::Other_Control)
            c = QLatin1Char(' ');
    }
    return s;
}

double basePixelSize(const QFont& f)
{
    if (f.pixelSize() > 0)
        return f.pixelSize();
    if (f.pointSizeF() > 0)
        return f.pointSizeF() * 96.0 / 72.0;
    return 13.0;
}

QFont makeFont(const QFont& base, double px, bool bold)
{
    QFont f(base);
    f.setPixelSize(std::max(1, int(std::lround(px))));
    f.setBold(bold);
    // The family actually matched goes first, so that SVG readers get a real name, not an alias.
    QStringList families{QFontInfo(f).family()};
    for (const QString& family : base.families().isEmpty() ? QStringList{base.family()} : base.families()) {
        if (!families.contains(family))
            families << family;
    }
    for (const QString& fallback : {QStringLiteral("DejaVu Sans"), QStringLiteral("WenQuanYi Micro Hei"),
                                    QStringLiteral("Noto Sans CJK SC")}) {
        if (!families.contains(fallback))
            families << fallback;
    }
    f.setFamilies(families);
    return f;
}

int niceStep(double minimum)
{
    if (minimum <= 1.0)
        return 1;
    for (int decade = 1; decade < 100000000; decade *= 10) {
        for (int m : {1, 2, 5}) {
            if (m * decade >= minimum)
                return m * decade;
        }
    }
    return 100000000;
}

QColor mix(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f), float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

bool isVectorDevice(const QPainter* p)
{
    const QPaintEngine* engine = p->paintEngine();
    if (!engine)
        return false;
    switch (engine->type()) {
    case QPaintEngine::SVG:
    case QPaintEngine::Pdf:
    case QPaintEngine::Picture:
        return true;
    default:
        return false;
    }
}

/** Fonts, label texts and their sizes at one font scale. */
struct Metrics {
    double em = 13.0;
    double pad = 0.0;
    double gap = 0.0;
    QFont labelFont, boldLabelFont, titleFont, axisFont, legendFont;
    QStringList rowTexts, colTexts;  ///< elided
    double rowW = 0.0;               ///< widest row label
    double colW = 0.0;               ///< widest column label
    double lineH = 0.0;              ///< height of a label line
    double titleH = 0.0;             ///< 0 when there is no title
    double axisH = 0.0;              ///< height of an axis title line
    double legendW = 0.0;            ///< legend bar, ticks and tick labels; 0 without legend
    double barW = 0.0;
    QString title;
    QStringList tickTexts;           ///< lo, middle, hi
    QString rangeCaption;            ///< which colour range the legend shows
    double captionH = 0.0;
};

/** Elided label texts and their bold widths for one pair of label fonts, by label and width limit. */
using LabelCache = QHash<QString, QHash<double, std::pair<QString, double>>>;

/** This thread's cache for a pair of fonts (renderers paint on the GUI thread and, for exports, on
 *  others). A figure measures at two or three sizes (preferred and fitted); past a few more sizes,
 *  or more labels than any figure shows, it starts again. */
LabelCache& labelCache(const QString& fonts)
{
    thread_local QHash<QString, LabelCache> caches;
    if (!caches.contains(fonts) && caches.size() >= 8)
        caches.clear();
    LabelCache& cache = caches[fonts];
    if (cache.size() > 4 * 8192)
        cache.clear();
    return cache;
}

Metrics measure(const HeatmapData& data, const HeatmapStyle& style, const ColourScale& colours, double scale,
                double maxRowLabelW, double maxColLabelW, double maxTitleW)
{
    Metrics m;
    m.em = basePixelSize(style.font) * scale;
    m.pad = 0.9 * m.em;
    m.gap = 0.4 * m.em;
    m.labelFont = makeFont(style.font, m.em, false);
    m.boldLabelFont = makeFont(style.font, m.em, true);
    m.titleFont = makeFont(style.font, 1.2 * m.em, true);
    m.axisFont = makeFont(style.font, m.em, false);
    m.axisFont.setItalic(true);
    m.legendFont = makeFont(style.font, 0.9 * m.em, false);

    const QFontMetricsF fm(m.labelFont);
    const QFontMetricsF boldFm(m.boldLabelFont);  // an emphasised label must fit too
    m.lineH = fm.height();
    // Shaping a label is the costly part of a layout, and the same tokens come back on every edit
    // and in every figure: each label is shaped once per font and width limit.
    LabelCache& cache = labelCache(m.labelFont.key() + QLatin1Char('|') + m.boldLabelFont.key());
    const auto elide = [&](const QStringList& in, int count, double limit, QStringList& out, double& widest) {
        out.clear();
        out.reserve(count);
        widest = 0.0;
        for (int i = 0; i < count; ++i) {
            const QString label = in.value(i);
            auto& byLimit = cache[label];
            auto hit = byLimit.find(limit);
            if (hit == byLimit.end()) {
                // Most labels fit: measuring one is cheaper than asking for its elided form.
                QString text = displayLabel(label);
                if (fm.horizontalAdvance(text) > limit)
                    text = fm.elidedText(text, Qt::ElideRight, limit);
                hit = byLimit.insert(limit, {text, boldFm.horizontalAdvance(text)});
            }
            widest = std::max(widest, hit->second);
            out << hit->first;
        }
    };
    elide(data.rowLabels, int(data.values.rows()), maxRowLabelW, m.rowTexts, m.rowW);
    elide(data.colLabels, int(data.values.cols()), maxColLabelW, m.colTexts, m.colW);

    if (style.showTitle && !data.title.isEmpty()) {
        const QFontMetricsF tfm(m.titleFont);
        m.title = tfm.elidedText(data.title, Qt::ElideRight, maxTitleW);
        m.titleH = tfm.height();
    }
    m.axisH = QFontMetricsF(m.axisFont).height();

    if (style.showLegend) {
        const QFontMetricsF lfm(m.legendFont);
        m.barW = 0.9 * m.em;
        if (colours.mode() == ColourRange::Row) {
            m.tickTexts << QCoreApplication::translate("HeatmapRenderer", "row min") << QString()
                        << QCoreApplication::translate("HeatmapRenderer", "row max");
        } else {
            for (double t : {0.0, 0.5, 1.0})
                m.tickTexts << figureNumber(colours.valueAt(t), 'g', colours.mode() == ColourRange::Log ? 2 : 4);
        }
        m.legendW = 1.1 * m.em + colourBarWidth(m.barW, m.em, m.legendFont, m.tickTexts);
        m.rangeCaption = HeatmapRenderer::colourRangeCaption(colours.mode());
        // The caption stands above the bar, starting at its left edge.
        m.legendW = std::max(m.legendW, 1.1 * m.em + lfm.horizontalAdvance(m.rangeCaption));
        m.captionH = lfm.height();
    }
    return m;
}

/** True when every character of text is of a script written upright in a vertical line (Chinese,
 *  Japanese, Korean), so a vertical title stacks its characters instead of turning them. */
bool isUprightScript(const QString& text)
{
    if (text.isEmpty())
        return false;
    for (const QChar c : text) {
        if (c.isSurrogate())
            return false;
        switch (c.script()) {
        case QChar::Script_Han:
        case QChar::Script_Hiragana:
        case QChar::Script_Katakana:
        case QChar::Script_Hangul:
        case QChar::Script_Bopomofo: break;
        default: return false;
        }
    }
    return true;
}

struct Margins {
    double left = 0.0, top = 0.0, right = 0.0, bottom = 0.0;
};

double columnExtent(const Metrics& m, ColumnMode mode)
{
    if (m.colW <= 0.0)
        return 0.0;
    switch (mode) {
    case ColumnMode::Horizontal: return m.lineH;
    case ColumnMode::Diagonal: return (m.colW + 0.5 * m.lineH) * kSqrtHalf;
    case ColumnMode::Vertical: return m.colW;
    }
    return 0.0;
}

Margins marginsFor(const Metrics& m, const HeatmapData& data, ColumnMode mode, double cell)
{
    Margins g;
    g.left = m.pad + (data.rowAxisTitle.isEmpty() ? 0.0 : m.axisH + 0.5 * m.em) + (m.rowW > 0 ? m.rowW + m.gap : 0.0);
    if (mode == ColumnMode::Diagonal) {
        const double overhang = (m.colW + 0.5 * m.lineH) * kSqrtHalf - 0.5 * cell;
        g.left = std::max(g.left, m.pad + overhang);
    }
    g.top = m.pad + (m.titleH > 0 ? m.titleH + 0.8 * m.em : 0.0);
    const double extent = columnExtent(m, mode);
    g.bottom = (extent > 0 ? m.gap + extent : 0.0) + (data.colAxisTitle.isEmpty() ? 0.0 : 0.5 * m.em + m.axisH) + m.pad;
    g.right = m.legendW + m.pad;
    return g;
}

bool columnModeFits(const Metrics& m, ColumnMode mode, double cell)
{
    switch (mode) {
    case ColumnMode::Horizontal: return m.colW <= 0.92 * cell;
    case ColumnMode::Diagonal: return cell * kSqrtHalf >= 1.05 * m.lineH;
    case ColumnMode::Vertical: return true;
    }
    return true;
}

}  // namespace

struct HeatmapRenderer::Layout {
    QRectF target;
    Metrics m;
    ColumnMode columnMode = ColumnMode::Horizontal;
    QRectF matrix;      ///< the cells
    double cell = 0.0;  ///< width of one cell
    double rowH = 0.0;  ///< height of one cell: cell, or more when HeatmapStyle::minMatrixHeight stretches the rows
    int rowStep = 1;    ///< every rowStep-th row label is drawn
    int colStep = 1;
    QRectF titleRect;
    QRectF legendBar;
    QRectF captionRect;  ///< the colour range's caption, above the bar
    QFont annotationFont;
    bool annotate = false;
    bool measuredValues = false;  ///< the printed values' widths went into it, not only labels and range
};

HeatmapRenderer::HeatmapRenderer(HeatmapData data, HeatmapStyle style)
    : m_data(std::move(data)), m_style(std::move(style)), m_shape(m_data.values.rows(), m_data.values.cols())
{
    m_range = chooseRange(m_data, m_style.colormap);
    updateScale();
}

HeatmapRenderer::~HeatmapRenderer() = default;

void HeatmapRenderer::updateScale()
{
    m_scale = ColourScale::of(m_data.values, m_style.colourRange, m_range, CausalMask{m_data.causalMask}, m_style.colormap);
}

QString HeatmapRenderer::colourRangeCaption(ColourRange range)
{
    switch (range) {
    case ColourRange::Fixed: return QCoreApplication::translate("HeatmapRenderer", "fixed range");
    case ColourRange::Matrix: return QCoreApplication::translate("HeatmapRenderer", "matrix min–max");
    case ColourRange::Row: return QCoreApplication::translate("HeatmapRenderer", "each row min–max");
    case ColourRange::Log: return QCoreApplication::translate("HeatmapRenderer", "log scale");
    }
    return {};
}

QRgb HeatmapRenderer::maskedColor() const
{
    return mix(m_style.palette.color(QPalette::Base), m_style.palette.color(QPalette::Text), 0.16).rgb();
}

bool HeatmapRenderer::setData(HeatmapData data)
{
    // The layout and preferred size come from the shape, labels, titles and range; the values count only
    // when they are printed. New values in the same frame (an edit) keep them: measuring 4096 labels again
    // would cost more than the new picture.
    const bool sameFrame = data.values.rows() == m_shape.first && data.values.cols() == m_shape.second
        && data.rowLabels == m_data.rowLabels && data.colLabels == m_data.colLabels && data.title == m_data.title
        && data.rowAxisTitle == m_data.rowAxisTitle && data.colAxisTitle == m_data.colAxisTitle
        && data.causalMask == m_data.causalMask;
    m_data = std::move(data);
    m_shape = {m_data.values.rows(), m_data.values.cols()};
    const auto before = m_scale.range();
    m_range = chooseRange(m_data, m_style.colormap);
    updateScale();
    // The legend's ticks are the range's: a new range is a new layout (when there is a legend).
    const bool keepLayout = sameFrame && (m_scale.range() == before || !m_style.showLegend)
        && !(m_layout && m_layout->measuredValues);
    if (!keepLayout)
        invalidate(true);
    else
        forgetImage();
    return keepLayout;
}

core::Matrix HeatmapRenderer::takeValues()
{
    core::Matrix values = std::move(m_data.values);
    m_data.values.resize(0, 0);
    forgetImage();  // the layout stays, for setData() to keep when the frame is the same
    return values;
}

void HeatmapRenderer::setStyle(const HeatmapStyle& style)
{
    const bool colours = style.colormap != m_style.colormap || style.colourRange != m_style.colourRange
        || style.palette.color(QPalette::Base) != m_style.palette.color(QPalette::Base)
        || style.palette.color(QPalette::Text) != m_style.palette.color(QPalette::Text);
    const bool geometry = colours || style.annotate != m_style.annotate || style.precision != m_style.precision
        || style.font != m_style.font || style.fontScale != m_style.fontScale || style.showTitle != m_style.showTitle
        || style.showLegend != m_style.showLegend || style.cellsAsImage != m_style.cellsAsImage;
    m_style = style;
    if (colours) {
        m_range = chooseRange(m_data, m_style.colormap);
        updateScale();
    }
    if (geometry)
        invalidate(colours);
}

void HeatmapRenderer::invalidate(bool colours)
{
    m_layout.reset();
    m_preferred.reset();
    if (colours)
        forgetImage();
}

void HeatmapRenderer::forgetImage()
{
    m_image = QImage();
    m_imageUpscale = 0;
    m_imageCells = QSize();
}

QRgb HeatmapRenderer::cellColor(int row, int col) const
{
    if (row < 0 || col < 0 || row >= m_data.values.rows() || col >= m_data.values.cols())
        return rgbAt(m_style.colormap, std::numeric_limits<double>::quiet_NaN());
    if (isMasked(row, col))
        return maskedColor();
    const double v = m_data.values.data()[Eigen::Index(row) * m_data.values.cols() + col];
    return rgbAt(m_style.colormap, m_scale.t(v, row));
}

QSize HeatmapRenderer::preferredSize() const
{
    if (!m_preferred)
        m_preferred = measurePreferredSize();
    return *m_preferred;
}

QSize HeatmapRenderer::measurePreferredSize() const
{
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());
    const int n = std::max(rows, cols);
    const double scale = m_style.fontScale > 0 ? m_style.fontScale : 1.0;
    double cell = n <= 10 ? 60.0 : std::max(1.0, std::floor(std::min(60.0, 720.0 / n)));
    if (n * cell > 1800.0)
        cell = 1800.0 / n;

    const double em = basePixelSize(m_style.font) * scale;
    const Metrics m = measure(m_data, m_style, m_scale, scale, 12 * em, 12 * em, 60 * em);
    ColumnMode mode = ColumnMode::Vertical;
    for (ColumnMode candidate : {ColumnMode::Horizontal, ColumnMode::Diagonal}) {
        if (columnModeFits(m, candidate, cell)) {
            mode = candidate;
            break;
        }
    }
    const Margins g = marginsFor(m, m_data, mode, cell);
    double width = g.left + cols * cell + g.right;
    const double height = g.top + rows * cell + g.bottom;
    if (m.titleH > 0)
        width = std::max(width, QFontMetricsF(m.titleFont).horizontalAdvance(m.title) + 2 * m.pad);
    return QSize(std::clamp(int(std::ceil(width)), 160, 4000), std::clamp(int(std::ceil(height)), 120, 4000));
}

bool HeatmapRenderer::annotates(const QRectF& target) const
{
    return layout(target).annotate;
}

const HeatmapRenderer::Layout& HeatmapRenderer::layout(const QRectF& target) const
{
    if (m_layout && m_layout->target == target)
        return *m_layout;

    auto l = std::make_unique<Layout>();
    l->target = target;
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());

    double scale = m_style.fontScale;
    if (scale <= 0) {
        const QSize preferred = preferredSize();
        scale = std::clamp(std::min(target.width() / preferred.width(), target.height() / preferred.height()), 0.75, 4.0);
    }
    const double em = basePixelSize(m_style.font) * scale;
    l->m = measure(m_data, m_style, m_scale, scale, std::min(12 * em, 0.22 * target.width()),
                   std::min(12 * em, 0.3 * target.height()), std::max(em, target.width() - 1.8 * em));
    const Metrics& m = l->m;

    Margins g;
    for (ColumnMode mode : {ColumnMode::Horizontal, ColumnMode::Diagonal, ColumnMode::Vertical}) {
        g = marginsFor(m, m_data, mode, l->cell);
        double cell = 0.0;
        if (rows > 0 && cols > 0) {
            cell = std::min((target.width() - g.left - g.right) / cols, (target.height() - g.top - g.bottom) / rows);
            if (mode == ColumnMode::Diagonal) {
                g = marginsFor(m, m_data, mode, std::max(cell, 0.0));
                cell = std::min((target.width() - g.left - g.right) / cols, (target.height() - g.top - g.bottom) / rows);
            }
        }
        l->cell = std::max(cell, 0.0);
        l->columnMode = mode;
        if (columnModeFits(m, mode, l->cell))
            break;
    }

    // A wide and short matrix keeps rows tall enough to see: its cells grow taller than wide.
    l->rowH = l->cell;
    if (rows > 0 && l->cell > 0 && m_style.minMatrixHeight > rows * l->cell)
        l->rowH = std::max(l->cell, std::min(m_style.minMatrixHeight, target.height() - g.top - g.bottom) / rows);
    const double matrixW = cols * l->cell;
    const double matrixH = rows * l->rowH;
    const double x0 = target.left() + 0.5 * (target.width() - (g.left + matrixW + g.right));
    const double y0 = target.top() + 0.5 * (target.height() - (g.top + matrixH + g.bottom));
    l->matrix = QRectF(x0 + g.left, y0 + g.top, matrixW, matrixH);

    const double minPitch = 1.1 * m.lineH;
    l->rowStep = l->rowH > 0 ? niceStep(minPitch / l->rowH) : 1;
    l->colStep = l->columnMode == ColumnMode::Vertical && l->cell > 0 ? niceStep(minPitch / l->cell) : 1;

    if (m.titleH > 0) {
        const double titleW = QFontMetricsF(m.titleFont).horizontalAdvance(m.title);
        double x = l->matrix.center().x() - 0.5 * titleW;
        x = std::clamp(x, target.left() + m.pad, std::max(target.left() + m.pad, target.right() - m.pad - titleW));
        l->titleRect = QRectF(x, l->matrix.top() - 0.8 * m.em - m.titleH, titleW, m.titleH);
    }
    if (m_style.showLegend) {
        // The caption above the bar, clear of the top tick's label (centred on the bar's top edge).
        const double room = 1.5 * m.captionH + 0.2 * m.em;
        const double barH = std::max(std::min(matrixH, target.height() - 2 * m.pad - room),
                                     std::min(6 * m.em, target.height() - 2 * m.pad - room));
        const double top = std::max(l->matrix.center().y() - 0.5 * barH, target.top() + m.pad + room);
        l->legendBar = QRectF(l->matrix.right() + 1.1 * m.em, top, m.barW, barH);
        // The caption stands above the bar, its line's bottom 0.2 em + half a line over the bar's top.
        const auto captionOver = [&](double barTop) {
            return m.rangeCaption.isEmpty()
                ? QRectF()
                : QRectF(l->legendBar.left(), barTop - 0.2 * m.em - 1.5 * m.captionH,
                         QFontMetricsF(m.legendFont).horizontalAdvance(m.rangeCaption), m.captionH);
        };
        l->captionRect = captionOver(top);
        // A title wider than the matrix reaches over the legend: the caption goes below it, the bar shortened.
        if (!l->captionRect.isEmpty() && !l->titleRect.isEmpty()
            && l->captionRect.intersects(l->titleRect.adjusted(-0.3 * m.em, 0, 0.3 * m.em, 0.2 * m.em))) {
            const double lower = l->titleRect.bottom() + 0.2 * m.em + 0.2 * m.em + 1.5 * m.captionH;
            l->legendBar.setTop(std::min(lower, l->legendBar.bottom() - 2 * m.em));
            l->captionRect = captionOver(l->legendBar.top());
        }
    }

    if (m_style.annotate && rows * cols <= perCellLimit && l->cell >= 14.0) {
        l->measuredValues = true;
        const double minPx = std::max(7.0, 0.55 * em);
        double px = std::min(0.95 * em, 0.36 * l->cell);
        if (px >= minPx) {
            QFont font = makeFont(m_style.font, px, false);
            double widest = 0.0;
            const QFontMetricsF afm(font);
            const double* v = m_data.values.data();
            for (Eigen::Index i = 0, n = m_data.values.size(); i < n; ++i)
                widest = std::max(widest, afm.horizontalAdvance(figureNumber(v[i], 'f', m_style.precision)));
            if (widest > 0.86 * l->cell)
                px = std::floor(px * 0.86 * l->cell / widest);
            if (px >= minPx) {
                l->annotationFont = makeFont(m_style.font, px, false);
                l->annotate = true;
            }
        }
    }

    m_layout = std::move(l);
    return *m_layout;
}

QRectF HeatmapRenderer::cellRect(int row, int col, const QRectF& target) const
{
    if (row < 0 || col < 0 || row >= m_data.values.rows() || col >= m_data.values.cols())
        return {};
    const Layout& l = layout(target);
    return QRectF(l.matrix.left() + col * l.cell, l.matrix.top() + row * l.rowH, l.cell, l.rowH);
}

QRectF HeatmapRenderer::titleRect(const QRectF& target) const
{
    return layout(target).titleRect;
}

QRectF HeatmapRenderer::rangeCaptionRect(const QRectF& target) const
{
    return m_style.showLegend ? layout(target).captionRect : QRectF();
}

std::optional<std::pair<int, int>> HeatmapRenderer::cellAt(const QPointF& pos, const QRectF& target) const
{
    const Layout& l = layout(target);
    if (l.cell <= 0 || !l.matrix.contains(pos))
        return std::nullopt;
    const int col = std::clamp(int((pos.x() - l.matrix.left()) / l.cell), 0, int(m_data.values.cols()) - 1);
    const int row = std::clamp(int((pos.y() - l.matrix.top()) / l.rowH), 0, int(m_data.values.rows()) - 1);
    return std::pair{row, col};
}

const QImage& HeatmapRenderer::cellImage(int upscale, int maxRows, int maxCols, const core::Matrix* blockMeans) const
{
    const auto [pooledRows, pooledCols] = core::pooledShape(m_data.values.rows(), m_data.values.cols(), maxRows, maxCols);
    const QSize cells{int(pooledCols), int(pooledRows)};
    if (m_imageUpscale == upscale && m_imageCells == cells && !m_image.isNull())
        return m_image;
    // More cells than pixels (a long sequence on screen): each pixel the mean of its block of cells,
    // instead of colouring millions of cells to drop most of them when the image is scaled down.
    core::Matrix pooledValues;
    const core::Matrix* source = &m_data.values;
    if (pooledRows < m_data.values.rows() || pooledCols < m_data.values.cols()) {
        if (blockMeans && blockMeans->rows() == pooledRows && blockMeans->cols() == pooledCols) {
            source = blockMeans;
        } else {
            pooledValues = core::pooled(m_data.values, maxRows, maxCols);
            source = &pooledValues;
        }
    }
    const int rows = int(source->rows());
    const int cols = int(source->cols());
    m_image = QImage(cols * upscale, rows * upscale, QImage::Format_RGB32);
    m_imageUpscale = upscale;
    m_imageCells = cells;
    if (m_image.isNull())
        return m_image;
    const QRgb* lut = colormapLut(m_style.colormap);
    // Block means: a block is masked when all its cells are; per row, each block row has its own range.
    CausalMask mask{m_data.causalMask};
    if (source != &m_data.values) {
        mask.blockRows = (m_data.values.rows() + rows - 1) / std::max(1, rows);
        mask.blockCols = (m_data.values.cols() + cols - 1) / std::max(1, cols);
    }
    const ColourScale pooledScale = source != &m_data.values && m_style.colourRange == ColourRange::Row
        ? ColourScale::of(*source, m_style.colourRange, m_range, mask, m_style.colormap)
        : ColourScale();
    const ColourScale& scale = source != &m_data.values && m_style.colourRange == ColourRange::Row ? pooledScale : m_scale;
    const QRgb masked = maskedColor();
    const double* values = source->data();
    std::vector<int> indices(static_cast<std::size_t>(cols));
    for (int r = 0; r < rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(r * upscale));
        const int live = int(mask.liveColumns(r, cols));
        if (upscale == 1) {
            scale.colours(values + Eigen::Index(r) * cols, live, r, lut, colormapNaNColor, line);
            std::fill(line + live, line + cols, masked);
        } else {
            scale.indices(values + Eigen::Index(r) * cols, live, r, indices.data());
            for (int c = 0; c < cols; ++c) {
                const int index = c < live ? indices[std::size_t(c)] : 0;
                const QRgb rgb = c >= live ? masked : index < 0 ? colormapNaNColor : lut[index];
                std::fill_n(line + c * upscale, upscale, rgb);
            }
        }
        for (int k = 1; k < upscale; ++k)
            std::copy_n(line, cols * upscale, reinterpret_cast<QRgb*>(m_image.scanLine(r * upscale + k)));
    }
    return m_image;
}

namespace {

/** Up to two cells per device pixel are kept. */
QSize rasterCellLimit(const QRectF& pixels, double dpr)
{
    return {std::max(1, int(std::ceil(2 * dpr * pixels.width()))), std::max(1, int(std::ceil(2 * dpr * pixels.height())))};
}

}  // namespace

const QImage& HeatmapRenderer::rasterCellImage(const QRectF& pixels, double dpr, const core::Matrix* blockMeans) const
{
    const QSize limit = rasterCellLimit(pixels, dpr);
    return cellImage(1, limit.height(), limit.width(), blockMeans);
}

QSize HeatmapRenderer::pooledCellLimit(const QRectF& target, double devicePixelRatio) const
{
    return rasterCellLimit(layout(target).matrix, devicePixelRatio);
}

void HeatmapRenderer::prepare(const QRectF& target, double devicePixelRatio) const
{
    prepare(target, devicePixelRatio, core::Matrix());
}

void HeatmapRenderer::prepare(const QRectF& target, double devicePixelRatio, const core::Matrix& blockMeans) const
{
    const Layout& l = layout(target);
    if (l.cell > 0 && m_data.values.size() > perCellRasterLimit)
        rasterCellImage(l.matrix, devicePixelRatio, &blockMeans);
}

QRectF HeatmapRenderer::valuesRect(const QRectF& target) const
{
    const Layout& l = layout(target);
    if (l.cell <= 0)
        return {};
    // The frame's pen reaches its width past the cells, the highlights' outlines twice their unit; every pixel
    // they touch is in the whole pixels around that (the row labels end only 0.4 em before the cells).
    const double reach = std::max(std::max(1.0, l.m.em / 14.0), 2 * std::max(1.0, l.m.em / 12.0));
    return QRectF(l.matrix.adjusted(-reach, -reach, reach, reach).toAlignedRect());
}

void HeatmapRenderer::paint(QPainter* painter, const QRectF& target, const QRectF& exposed) const
{
    const Layout& l = layout(target);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setRenderHint(QPainter::TextAntialiasing, true);
    painter->fillRect(exposed.isNull() ? target : target.intersected(exposed), m_style.palette.color(QPalette::Base));
    if (l.cell > 0) {
        paintCells(painter, l);
        paintMaskHatching(painter, l);
        paintAnnotations(painter, l);
        paintHighlights(painter, l);
    }
    // A widget's paint after new values exposes only their area: the labels and the legend are as painted.
    paintLabels(painter, l, exposed);
    paintLegend(painter, l, exposed);
    painter->restore();
}

void HeatmapRenderer::paintCells(QPainter* p, const Layout& l) const
{
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());
    const bool vector = isVectorDevice(p);
    if (rows * cols <= (vector && !m_style.cellsAsImage ? perCellLimit : perCellRasterLimit)) {
        // Runs of one colour are one rectangle. On pixels, edges snap to the grid, so neighbours
        // abut exactly; in vector files each run is also stroked in its own colour, which hides
        // the hairline seams viewers draw between abutting shapes.
        p->save();
        p->setRenderHint(QPainter::Antialiasing, vector);
        const double seam = std::clamp(0.05 * l.cell, 0.3, 1.0);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < cols;) {
                const QRgb rgb = cellColor(r, c);
                int end = c + 1;
                while (end < cols && cellColor(r, end) == rgb)
                    ++end;
                const QRectF rect(l.matrix.left() + c * l.cell, l.matrix.top() + r * l.rowH, (end - c) * l.cell, l.rowH);
                if (vector) {
                    p->setPen(QPen(QColor::fromRgb(rgb), seam, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
                    p->setBrush(QColor::fromRgb(rgb));
                    p->drawRect(rect);
                } else {
                    p->fillRect(rect, QColor::fromRgb(rgb));
                }
                c = end;
            }
        }
        p->restore();
    } else {
        const int n = std::max(rows, cols);
        const double dpr = p->device() ? p->device()->devicePixelRatioF() : 1.0;
        const QImage& image = vector ? cellImage(std::clamp(int(std::ceil(1600.0 / n)), 1, 16), rows, cols)
                                     : rasterCellImage(p->transform().mapRect(l.matrix), dpr);
        p->save();
        p->setRenderHint(QPainter::Antialiasing, false);
        p->setRenderHint(QPainter::SmoothPixmapTransform, false);
        p->setRenderHint(QPainter::LosslessImageRendering, true);
        p->drawImage(l.matrix, image);
        p->restore();
    }
    QColor frame = m_style.palette.color(QPalette::Text);
    frame.setAlphaF(0.45f);
    const double lineW = std::max(1.0, l.m.em / 14.0);
    p->setPen(QPen(frame, lineW, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
    p->setBrush(Qt::NoBrush);
    p->drawRect(l.matrix.adjusted(-0.5 * lineW, -0.5 * lineW, 0.5 * lineW, 0.5 * lineW));
}

void HeatmapRenderer::paintMaskHatching(QPainter* p, const Layout& l) const
{
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());
    if (!m_data.causalMask || rows < 1 || cols < 2)
        return;
    // The masked cells form a staircase above the diagonal; thin diagonal lines across it say "no value
    // here", which a grey alone could be mistaken for.
    const double spacing = std::max(4.0, std::min(0.3 * l.cell, 0.6 * l.m.em));
    if (l.cell < 3.0)
        return;  // too small to hatch: the grey says it
    // Row r is masked from column r + 1 on; the last row with a masked cell is min(rows, cols − 1) − 1.
    const int lastRow = std::min(rows, cols - 1) - 1;
    QPolygonF stairs;
    stairs << l.matrix.topRight() << QPointF(l.matrix.right(), l.matrix.top() + (lastRow + 1) * l.rowH);
    for (int r = lastRow; r >= 0; --r) {
        const double x = l.matrix.left() + (r + 1) * l.cell;
        stairs << QPointF(x, l.matrix.top() + (r + 1) * l.rowH) << QPointF(x, l.matrix.top() + r * l.rowH);
    }
    QPainterPath path;
    path.addPolygon(stairs);
    path.closeSubpath();
    p->save();
    p->setClipPath(path, Qt::IntersectClip);
    QColor line = mix(m_style.palette.color(QPalette::Base), m_style.palette.color(QPalette::Text), 0.42);
    p->setPen(QPen(line, std::max(1.0, 0.08 * spacing), Qt::SolidLine, Qt::FlatCap));
    const QRectF box = path.boundingRect();
    for (double d = 0.0; d <= box.width() + box.height(); d += spacing)
        p->drawLine(QPointF(box.left() + d, box.top()), QPointF(box.left() + d - box.height(), box.bottom()));
    p->restore();
}

void HeatmapRenderer::paintAnnotations(QPainter* p, const Layout& l) const
{
    if (!l.annotate)
        return;
    p->setFont(l.annotationFont);
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            if (isMasked(r, c))
                continue;  // no value to print: the mask is the cell's content
            const QRectF rect(l.matrix.left() + c * l.cell, l.matrix.top() + r * l.rowH, l.cell, l.rowH);
            p->setPen(contrastingTextColor(cellColor(r, c)));
            p->drawText(rect, Qt::AlignCenter, figureNumber(m_data.values(r, c), 'f', m_style.precision));
        }
    }
}

void HeatmapRenderer::paintHighlights(QPainter* p, const Layout& l) const
{
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());
    const double unit = std::max(1.0, l.m.em / 12.0);
    const auto outline = [&](const QRectF& rect, const QColor& colour, double width) {
        p->setBrush(Qt::NoBrush);
        p->setPen(QPen(QColor(0, 0, 0, 170), width + 2 * unit, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        p->drawRect(rect);
        p->setPen(QPen(colour, width, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        p->drawRect(rect);
    };
    const auto rowRect = [&](int r) { return QRectF(l.matrix.left(), l.matrix.top() + r * l.rowH, l.matrix.width(), l.rowH); };
    const auto colRect = [&](int c) { return QRectF(l.matrix.left() + c * l.cell, l.matrix.top(), l.cell, l.matrix.height()); };

    if (m_style.selectedRow >= 0 && m_style.selectedRow < rows)
        outline(rowRect(m_style.selectedRow), m_style.palette.color(QPalette::Highlight), 2 * unit);
    const QColor hover(255, 255, 255, 230);
    if (m_style.highlightRow >= 0 && m_style.highlightRow < rows)
        outline(rowRect(m_style.highlightRow), hover, unit);
    if (m_style.highlightCol >= 0 && m_style.highlightCol < cols)
        outline(colRect(m_style.highlightCol), hover, unit);
    if (m_style.highlightRow >= 0 && m_style.highlightRow < rows && m_style.highlightCol >= 0 && m_style.highlightCol < cols) {
        outline(QRectF(l.matrix.left() + m_style.highlightCol * l.cell, l.matrix.top() + m_style.highlightRow * l.rowH,
                       l.cell, l.rowH),
                hover, 2 * unit);
    }
}

void HeatmapRenderer::paintLabels(QPainter* p, const Layout& l, const QRectF& exposed) const
{
    const auto reaches = [&](const QRectF& r) { return exposed.isNull() || r.intersects(exposed); };
    const Metrics& m = l.m;
    const QColor fg = m_style.palette.color(QPalette::Text);
    const QColor bg = m_style.palette.color(QPalette::Base);
    const QColor muted = mix(fg, bg, 0.3);
    const int rows = int(m_data.values.rows());
    const int cols = int(m_data.values.cols());

    if (!m.title.isEmpty() && reaches(l.titleRect)) {
        p->setPen(fg);
        p->setFont(m.titleFont);
        p->drawText(l.titleRect, Qt::AlignCenter | Qt::TextSingleLine, m.title);
    }

    const auto emphasised = [&](bool row, int i) {
        return row ? (i == m_style.highlightRow || i == m_style.selectedRow) : i == m_style.highlightCol;
    };

    if (m.rowW > 0 && l.cell > 0) {
        const double right = l.matrix.left() - m.gap;
        const auto drawRowLabel = [&](int r, bool plate) {
            const double cy = l.matrix.top() + (r + 0.5) * l.rowH;
            const QRectF box(right - m.rowW - m.em, cy - m.lineH, m.rowW + m.em, 2 * m.lineH);
            if (!reaches(box))
                return;
            p->setFont(emphasised(true, r) ? m.boldLabelFont : m.labelFont);
            const int flags = Qt::AlignRight | Qt::AlignVCenter | Qt::TextSingleLine;
            if (plate)
                p->fillRect(p->boundingRect(box, flags, m.rowTexts.value(r)).adjusted(-0.2 * m.em, 0, 0, 0), bg);
            p->setPen(fg);
            p->drawText(box, flags, m.rowTexts.value(r));
        };
        const std::array<int, 2> emphasisedRows{m_style.selectedRow, m_style.highlightRow};
        const auto crowded = [&](int r) {
            return std::any_of(emphasisedRows.begin(), emphasisedRows.end(), [&](int e) {
                return e >= 0 && e < rows && e != r && std::abs(e - r) * l.rowH < 1.1 * m.lineH;
            });
        };
        for (int r = 0; r < rows; r += l.rowStep) {
            if (l.rowStep == 1 || !crowded(r))
                drawRowLabel(r, false);
        }
        if (l.rowStep > 1) {
            for (int r : emphasisedRows) {
                if (r >= 0 && r < rows)
                    drawRowLabel(r, true);
            }
        }
    }

    const double colTop = l.matrix.bottom() + m.gap;
    if (m.colW > 0 && l.cell > 0) {
        const auto drawColumnLabel = [&](int c, bool plate) {
            const QString& text = m.colTexts.at(c);
            const double cx = l.matrix.left() + (c + 0.5) * l.cell;
            QRectF box;
            QTransform turn;
            if (l.columnMode == ColumnMode::Horizontal) {
                box = QRectF(cx - 0.5 * l.cell - m.em, colTop, l.cell + 2 * m.em, m.lineH);
            } else {
                const bool diagonal = l.columnMode == ColumnMode::Diagonal;
                // The label ends at its column and reads upwards.
                turn.translate(cx + (diagonal ? 0.25 * m.lineH * kSqrtHalf : 0.0), colTop);
                turn.rotate(diagonal ? -45.0 : -90.0);
                box = QRectF(-m.colW - m.em, -0.5 * m.lineH, m.colW + m.em, m.lineH);
            }
            if (!reaches(turn.mapRect(box)))
                return;
            p->save();
            p->setTransform(turn, true);
            p->setFont(emphasised(false, c) ? m.boldLabelFont : m.labelFont);
            const int flags = (l.columnMode == ColumnMode::Horizontal ? Qt::AlignHCenter : Qt::AlignRight)
                | Qt::AlignVCenter | Qt::TextSingleLine;
            if (plate) {
                const QRectF used = p->boundingRect(box, flags, text).adjusted(-0.2 * m.em, 0, 0.2 * m.em, 0);
                p->fillRect(used, bg);
            }
            p->setPen(fg);
            p->drawText(box, flags, text);
            p->restore();
        };
        const int hc = m_style.highlightCol;
        for (int c = 0; c < cols; c += l.colStep) {
            if (l.colStep == 1 || hc < 0 || hc >= cols || c == hc || std::abs(hc - c) * l.cell >= 1.1 * m.lineH)
                drawColumnLabel(c, false);
        }
        if (l.colStep > 1 && m_style.highlightCol >= 0 && m_style.highlightCol < cols)
            drawColumnLabel(m_style.highlightCol, true);
    }

    p->setPen(muted);
    p->setFont(m.axisFont);
    // The row axis's title stands left of the row labels, the column axis's below the column labels.
    const double rowAxisX = l.matrix.left() - (m.rowW > 0 ? m.rowW + m.gap : 0.0) - 0.5 * m.em - 0.5 * m.axisH;
    const double colAxisY = colTop + (columnExtent(m, l.columnMode) > 0 ? columnExtent(m, l.columnMode) : -m.gap)
        + 0.5 * m.em;
    if (!reaches(QRectF(l.target.left(), l.target.top(), rowAxisX + m.axisH - l.target.left(), l.target.height()))) {
        // the row axis's title is as painted
    } else if (!m_data.rowAxisTitle.isEmpty() && isUprightScript(m_data.rowAxisTitle)) {
        // Chinese and Japanese read top to bottom with each character upright, not lying on its side;
        // and upright, not slanted: these scripts have no italic.
        const double x = rowAxisX;
        QFont upright = m.axisFont;
        upright.setItalic(false);
        p->setFont(upright);
        const double lineH = QFontMetricsF(upright).height();
        const QString& title = m_data.rowAxisTitle;
        double y = l.matrix.center().y() - 0.5 * lineH * title.size();
        for (const QChar c : title) {
            p->drawText(QRectF(x - 0.5 * m.axisH, y, m.axisH, lineH), Qt::AlignCenter | Qt::TextSingleLine, QString(c));
            y += lineH;
        }
        p->setFont(m.axisFont);
    } else if (!m_data.rowAxisTitle.isEmpty()) {
        const double x = rowAxisX;
        p->save();
        p->translate(x, l.matrix.center().y());
        p->rotate(-90.0);
        p->drawText(QRectF(-0.5 * l.target.height(), -0.5 * m.axisH, l.target.height(), m.axisH),
                    Qt::AlignCenter | Qt::TextSingleLine, m_data.rowAxisTitle);
        p->restore();
    }
    if (!m_data.colAxisTitle.isEmpty()
        && reaches(QRectF(l.target.left(), colAxisY, l.target.width(), l.target.bottom() - colAxisY))) {
        const double y = colAxisY;
        QFont font = m.axisFont;
        font.setItalic(!isUprightScript(m_data.colAxisTitle));
        p->setFont(font);
        p->drawText(QRectF(l.matrix.center().x() - 0.5 * l.target.width(), y, l.target.width(), m.axisH),
                    Qt::AlignHCenter | Qt::AlignTop | Qt::TextSingleLine, m_data.colAxisTitle);
    }
}

void HeatmapRenderer::paintLegend(QPainter* p, const Layout& l, const QRectF& exposed) const
{
    if (!m_style.showLegend || l.legendBar.isEmpty())
        return;
    // The bar, its ticks and caption stand right of its left edge.
    const QRectF legend(l.legendBar.left(), l.target.top(), l.target.right() - l.legendBar.left(), l.target.height());
    if (!exposed.isNull() && !legend.intersects(exposed))
        return;
    const Metrics& m = l.m;
    paintColourBar(p, l.legendBar, m_style.colormap, m_style.palette, m.em, m.legendFont, m.tickTexts);
    if (!m.rangeCaption.isEmpty()) {
        p->setPen(mix(m_style.palette.color(QPalette::Text), m_style.palette.color(QPalette::Base), 0.3));
        p->setFont(m.legendFont);
        p->drawText(QRectF(l.captionRect.left(), l.captionRect.top(), l.target.right() - l.captionRect.left(), m.captionH),
                    Qt::AlignLeft | Qt::AlignBottom | Qt::TextSingleLine, m.rangeCaption);
    }
}

namespace {

/** The tick's length and the gap between a tick and its label, in em. */
constexpr double colourBarTick = 0.35, colourBarLabelGap = 0.3;

}  // namespace

double colourBarWidth(double barWidth, double em, const QFont& font, const QStringList& ticks)
{
    const QFontMetricsF fm(font);
    double widest = 0.0;
    for (const QString& text : ticks)
        widest = std::max(widest, fm.horizontalAdvance(text));
    return barWidth + (colourBarTick + colourBarLabelGap) * em + widest;
}

void paintColourBar(QPainter* p, const QRectF& bar, ColormapId colormap, const QPalette& palette, double em,
                    const QFont& font, const QStringList& ticks)
{
    p->save();
    QLinearGradient gradient(bar.bottomLeft(), bar.topLeft());
    constexpr int stops = 64;
    for (int i = 0; i <= stops; ++i)
        gradient.setColorAt(double(i) / stops, colorAt(colormap, double(i) / stops));
    p->setPen(Qt::NoPen);
    p->fillRect(bar, gradient);

    const QColor fg = palette.color(QPalette::Text);
    QColor frame = fg;
    frame.setAlphaF(0.45f);
    const double lineW = std::max(1.0, em / 14.0);
    p->setPen(QPen(frame, lineW));
    p->setBrush(Qt::NoBrush);
    p->drawRect(bar);

    const double tick = colourBarTick * em;
    const QFontMetricsF lfm(font);
    p->setFont(font);
    for (int i = 0; i < 3; ++i) {
        const double y = bar.bottom() - 0.5 * i * bar.height();
        p->setPen(QPen(frame, lineW));
        p->drawLine(QPointF(bar.right(), y), QPointF(bar.right() + tick, y));
        p->setPen(fg);
        p->drawText(QRectF(bar.right() + tick + colourBarLabelGap * em, y - lfm.height(), 20 * em, 2 * lfm.height()),
                    Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine, ticks.value(i));
    }
    p->restore();
}

QString logScaleNote(Eigen::Index cells)
{
    if (cells <= 0)
        return {};
    return cells == 1
        ? QCoreApplication::translate("HeatmapRenderer", "1 cell is 0 or below, which a log scale cannot place; it is "
                                                         "drawn in the colour of the scale's lowest end.")
        : QCoreApplication::translate("HeatmapRenderer", "%1 cells are 0 or below, which a log scale cannot place; "
                                                         "they are drawn in the colour of the scale's lowest end.")
              .arg(cells);
}

QString logScaleNoteOfHeatmaps(Eigen::Index cells)
{
    if (cells <= 0)
        return {};
    return cells == 1
        ? QCoreApplication::translate("HeatmapRenderer", "1 cell of the heatmaps drawn is 0 or below, which a log scale "
                                                         "cannot place; it is drawn in the colour of the lowest end of its "
                                                         "heatmap's scale.")
        : QCoreApplication::translate("HeatmapRenderer", "%1 cells of the heatmaps drawn are 0 or below, which a log scale "
                                                         "cannot place; they are drawn in the colour of the lowest end of "
                                                         "their heatmap's scale.")
              .arg(cells);
}

}  // namespace render
