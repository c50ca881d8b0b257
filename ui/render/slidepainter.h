#pragma once
/** SlidePainter: draws one teaching slide on any QPainter (the teaching view's, a PDF page's) into a
 *  rectangle, fitting every text into its box, and lists what it drew so tests can check the fit. */

#include "slide.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRectF>
#include <QTransform>

#include <vector>

class QIODevice;
class QPainter;

namespace render {

struct MatrixGeometry;
struct MatrixFonts;

/** The colours of a slide: the widget takes them from its palette, the PDF deck uses the defaults. */
struct SlideColors {
    QColor background = Qt::white;
    QColor text = Qt::black;
    QColor dim = QColor(110, 110, 110);      ///< labels, masked cells, the page number
    QColor accent = QColor(31, 95, 191);     ///< the formula
    QColor highlight = QColor(48, 140, 198); ///< the row or column the step uses (drawn translucent)
    QColor masked = QColor(222, 222, 222);   ///< behind the cells the causal mask hides, hatched in dim
};

/** The parts of a slide, each with texts of one size. */
enum class SlidePart { Page, Note, Title, Formula, Explanation, Matrices, Arithmetic };

/** One text the painter drew: its box in the coordinates of the area painted into (a matrix's texts
 *  as the matrices were scaled to fit), whether the text fits that box (measured with the font on the
 *  painter's device), the part it belongs to and its height in pixels as drawn. */
struct DrawnText {
    QString text;
    QRectF box;
    bool fits = true;
    SlidePart part = SlidePart::Title;
    double size = 0;
};

class SlidePainter {
    Q_DECLARE_TR_FUNCTIONS(SlidePainter)
public:
    /** base gives the font family; sizes follow the rectangle painted into. */
    SlidePainter(const Slide& slide, const QFont& base, const SlideColors& colors);

    /** Draws "index / count" in the bottom right corner (index from 1); 0: no page number. */
    void setPage(int index, int count);
    /** Text size factor on top of the size chosen from the rectangle (the view's Ctrl +/−). Above 1
     *  it is a wish: paint() zooms by steps of zoomStep as far as the slide still fits, its matrices
     *  showing fewer rows and columns and its arithmetic fewer lines (counted) to draw them larger. */
    void setZoom(double zoom);
    /** The view's step for Ctrl +/−, and the steps paint() tries a larger zoom in. */
    static constexpr double zoomStep = 1.15;

    /** Paints the slide into area of p (the background too). Clears and fills drawn(). */
    void paint(QPainter& p, const QRectF& area);
    /** Every text of the last paint(), in drawing order. */
    const std::vector<DrawnText>& drawn() const { return m_drawn; }
    /** What the last paint() scaled the matrices by to fit them (1: their full size; texts of the
     *  matrices are drawn at this times their font's size). */
    double matrixScale() const { return m_matrixScale; }
    /** The zoom the last paint() drew at: the wish of setZoom(), or above 1 the largest step towards it
     *  at which every text fits its box, no two texts overlap, all lie in the area and no part of the
     *  slide is drawn smaller than a step before. Less than the wish: the slide says so in its corner. */
    double shownZoom() const { return m_shownZoom; }

private:
    struct Lines;
    /** Lays the slide out at zoom into area, drawing it unless m_dry. */
    void layOut(QPainter& p, const QRectF& area, double zoom);
    /** See shownZoom(). */
    double largestZoom(QPainter& p, const QRectF& area);
    /** Whether every text of the last layOut() fits its box, lies inside area and overlaps no other. */
    bool laidOutWithin(const QRectF& area) const;
    void text(QPainter& p, const QRectF& box, int flags, const QString& s);
    /** A single line in box, its font made smaller (to 55 %) until it fits. */
    void fittedLine(QPainter& p, QFont font, const QRectF& box, int flags, const QString& s);
    struct MatrixLayout;
    /** The matrices' fonts, geometry, rows and scale to fit area's width and maxHeight (unit: the text height).
     *  Zoomed in, they show fewer rows and columns until they are drawn at m_zoomBase's matrix scale. */
    MatrixLayout layOutMatrices(QPainter& p, const QRectF& area, double maxHeight, double unit) const;
    /** One matrix of geometry g with its top left at (x, y0): name, labels, highlights, masked cells, numbers,
     *  "…" and "⋮" where it is cut, brackets. */
    void paintMatrix(QPainter& p, const SlideMatrix& m, const MatrixGeometry& g, const MatrixFonts& fonts,
                     double x, double y0);
    /** The matrices and their operators in one or two rows across area; returns the height they took. */
    double paintMatrices(QPainter& p, const QRectF& area, double maxHeight, double unit);
    /** The font of the arithmetic at full size. */
    QFont monoFont(double unit) const;
    /** The arithmetic in rows of one or two columns that fit width × height, see the definition. */
    Lines layoutArithmetic(QPainter& p, QFont font, double width, double height) const;
    /** Zoomed in: the arithmetic at m_zoomBase's share of its full size, its last lines left out (and
     *  counted) where they no longer fit. */
    Lines layoutZoomedArithmetic(QPainter& p, QFont font, double width, double height) const;
    /** lines at font in columns that share width, whole lines to a column; fits when within width × height. */
    Lines arithmeticColumns(QPainter& p, const QFont& font, const QStringList& lines, int columns, double gap,
                            double width, double height) const;
    void paintArithmetic(QPainter& p, const QRectF& area, double unit);

    const Slide& m_slide;
    QFont m_base;
    SlideColors m_colors;
    int m_page = 0, m_pageCount = 0;
    double m_zoom = 1.0, m_shownZoom = 1.0;
    bool m_dry = false;             ///< lay out without drawing (trying a zoom)
    SlidePart m_part = SlidePart::Title; ///< what text() is drawing
    QTransform m_toArea;            ///< undoes the painter's transform as paint() began
    std::vector<DrawnText> m_drawn;
    double m_matrixScale = 1.0;
    double m_arithmeticShare = 1.0; ///< the last layout's arithmetic size, of its full size
    /** What the slide is at zoom 1, which a zoomed layout keeps each part at least as large as, times the
     *  zoom: the matrices' scale and the arithmetic's share. Zero scale: not zoomed in. */
    struct ZoomBase {
        double matrixScale = 0, arithmeticShare = 1;
    } m_zoomBase;
};

/** Writes slides as a PDF deck to device: one landscape 16 : 9 page per slide, painted by SlidePainter
 *  with real text. False with a message in error when painting fails. */
bool writeSlideDeck(const std::vector<Slide>& slides, const QString& title, QIODevice* device, QString* error);
/** The same into the file at path, replaced only when the whole deck is written. */
bool writeSlideDeck(const std::vector<Slide>& slides, const QString& title, const QString& path, QString* error);

} // namespace render
