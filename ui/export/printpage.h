#pragma once
/** What the PDF report and the one-page handout share: the A4 page, fonts and colours, rich text
 *  (real subscripts) painted on the PDF painter, the footer, the printed heatmap's style and the
 *  atomic write of the file. Units are the writer's pixels at 96 dpi, the unit HeatmapRenderer is made for. */

#include "core/attention/trace.h"
#include "ui/render/exportresult.h"
#include "ui/render/heatmaprenderer.h"

#include <QColor>
#include <QFont>
#include <QPointF>
#include <QString>
#include <QTextDocument>

#include <functional>
#include <memory>
#include <string>
#include <vector>

class QIODevice;
class QPainter;
class QPaintDevice;
class QPdfWriter;

namespace exports {

/** The colours of the printed pages. */
namespace ink {
inline const QColor text(0x1f, 0x23, 0x28);
inline const QColor muted(0x5f, 0x66, 0x6d);
inline const QColor rule(0xd0, 0xd4, 0xd9);
inline const QColor tint(0xf3, 0xf5, 0xf7);
inline const QColor accent(0x2b, 0x59, 0xc3);
} // namespace ink

/** The application's font at points, bold and italic as asked. */
QFont printFont(double points, bool bold = false, bool italic = false);

/** Plain wording with symbols written the plain way ("W_Q", "d_model", "2^(i/d)") as rich text with real
 *  subscripts and superscripts; everything else is escaped. Not for tokens, which may contain "_". */
QString richSymbols(const QString& plain);

/** The first `count` tokens numbered for a page's token list ("1 The", "2 cat"), plain text: a token longer than
 *  40 characters is cut to its first 39 and "…", since a page has no room for a word longer than its line. */
QStringList numberedTokens(const std::vector<std::string>& tokens, std::size_t count);

/** A paragraph of rich text (HTML subset of QTextDocument) laid out for one paint device at one width. */
class RichText {
public:
    /** html in font and colour, wrapped at width (≤ 0: not wrapped), measured on device. */
    RichText(const QString& html, const QFont& font, const QColor& color, double width, QPaintDevice* device);
    ~RichText();
    RichText(RichText&&) noexcept;
    RichText& operator=(RichText&&) noexcept;

    /** Height of the laid-out text. */
    double height() const;
    /** Width of its longest line. */
    double width() const;
    /** Paints it with its top left corner at topLeft. */
    void paint(QPainter* painter, QPointF topLeft) const;

private:
    std::unique_ptr<QTextDocument> m_doc;
};

/** Sets up writer for an A4 portrait document at 96 dpi with the margins of every printed page. */
void setUpPrintPage(QPdfWriter& writer, const QString& title);

/** Height kept free for the footer at the bottom of a page of writer. */
double footerHeight(QPaintDevice* device);
/** Paints the footer of a page whose area (the page inside its margins) is area: left text and right text. */
void paintFooter(QPainter* painter, const QRectF& area, const QString& left, const QString& right);

/** The style of a heatmap on paper: colours on white, labels at a fixed size that reads when printed; the
 *  colour map's ends stand for what range says. */
render::HeatmapStyle printHeatmapStyle(render::ColormapId colormap, render::ColourRange range = render::ColourRange::Fixed);

/** The report's or the handout's writer into a file (writeReport, writeHandout), as the window and the command
 *  line choose one: the trace, the title, the path and the colour range of its attention heatmaps. */
using TraceWriter = std::function<render::ExportResult(const core::Trace& trace, const QString& title,
                                                       const QString& path, render::ColourRange range)>;


} // namespace exports
