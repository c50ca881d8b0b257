#include "heatmapexport.h"

#include "atomicwrite.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace render {

namespace {

constexpr int kMaxSide = 16384;

/** The translation context of these texts, the same for lupdate and at run time. */
struct HeatmapExport {
    Q_DECLARE_TR_FUNCTIONS(HeatmapExport)
};

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

/** The figure as a PNG: pixels painted first, so that a figure too large for memory is named before
 *  anything is written. */
bool exportPng(const FigurePaint& paint, const QColor& background, const QString& title, const QString& path,
               QSize size, QString* error)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return fail(error, HeatmapExport::tr("Cannot export \"%1\": not enough memory for a %2 × %3 image")
                               .arg(path).arg(size.width()).arg(size.height()));
    image.fill(background);
    QPainter painter(&image);
    paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    if (!title.isEmpty())
        image.setText(QStringLiteral("Title"), title);
    image.setText(QStringLiteral("Software"), QStringLiteral("Attention Explorer"));
    return writeAtomically(
        path,
        [&image](QIODevice* device, QString* why) {
            if (image.save(device, "PNG"))
                return true;
            return fail(why, HeatmapExport::tr("the PNG could not be encoded"));
        },
        error);
}

bool writeSvg(const FigurePaint& paint, const QColor& background, const QString& title, QSize size, QIODevice* device,
              QString* why)
{
    QSvgGenerator generator;
    generator.setOutputDevice(device);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setResolution(96);
    generator.setTitle(title);
    generator.setDescription(QStringLiteral("Attention Explorer figure"));
    QPainter painter;
    if (!painter.begin(&generator))
        return fail(why, HeatmapExport::tr("the SVG could not be started"));
    painter.fillRect(QRectF(QPointF(0, 0), QSizeF(size)), background);
    paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    return true;
}

bool writePdf(const FigurePaint& paint, const QColor& background, const QString& title, QSize size, QIODevice* device,
              QString* why)
{
    QPdfWriter writer(device);
    writer.setResolution(96);
    writer.setPageSize(QPageSize(QSizeF(size) * (72.0 / 96.0), QPageSize::Point, QString(), QPageSize::ExactMatch));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Attention Explorer"));
    QPainter painter;
    if (!painter.begin(&writer))
        return fail(why, HeatmapExport::tr("the PDF could not be started"));
    const QRectF page(0, 0, writer.width(), writer.height());
    painter.fillRect(page, background);
    paint(&painter, page);
    painter.end();
    return true;
}

}  // namespace

QStringList heatmapExportFormats()
{
    return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")};
}

QImage renderHeatmapImage(const HeatmapData& data, const HeatmapStyle& style, QSize size)
{
    return renderHeatmapImage(HeatmapRenderer(data, style), style.palette.color(QPalette::Base), size);
}

QImage renderHeatmapImage(const HeatmapRenderer& renderer, const QColor& background, QSize size)
{
    if (size.isEmpty())
        size = renderer.preferredSize();
    if (size.width() > kMaxSide || size.height() > kMaxSide)
        return {};
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return image;
    image.fill(background);
    QPainter painter(&image);
    renderer.paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    return image;
}

ExportResult exportHeatmap(const HeatmapData& data, const HeatmapStyle& style, const QString& path, QSize pixelSize)
{
    const HeatmapRenderer renderer(data, style);
    const QSize size = pixelSize.isEmpty() ? renderer.preferredSize() : pixelSize;
    ExportResult result = exportFigure([&renderer](QPainter* p, const QRectF& target) { renderer.paint(p, target); },
                                       style.palette.color(QPalette::Base), data.title, path, size);
    result.belowLogScale = renderer.colourScale().belowLogScale();
    return result;
}

namespace {

/** exportFigure() with its error in *error. */
bool writeFigure(const FigurePaint& paint, const QColor& background, const QString& title, const QString& path,
                 QSize size, QString* error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix.isEmpty())
        return fail(error, HeatmapExport::tr("Cannot export \"%1\": the file name has no ending (use .png, .svg or .pdf)").arg(path));
    if (!heatmapExportFormats().contains(suffix))
        return fail(error, HeatmapExport::tr("Cannot export \"%1\": unknown file ending \".%2\" (use .png, .svg or .pdf)")
                               .arg(path, QFileInfo(path).suffix()));
    if (size.isEmpty() || size.width() > kMaxSide || size.height() > kMaxSide)
        return fail(error, HeatmapExport::tr("Cannot export \"%1\": the size %2×%3 is larger than %4 pixels a side")
                               .arg(path).arg(size.width()).arg(size.height()).arg(kMaxSide));

    if (suffix == QLatin1String("png"))
        return exportPng(paint, background, title, path, size, error);
    // The SVG and PDF writers do not see the disk's answer: they write into memory, and the file is
    // written whole from there.
    return writeAtomically(
        path,
        [&](QIODevice* device, QString* why) {
            return suffix == QLatin1String("svg") ? writeSvg(paint, background, title, size, device, why)
                                                  : writePdf(paint, background, title, size, device, why);
        },
        error);
}

}  // namespace

ExportResult exportFigure(const FigurePaint& paint, const QColor& background, const QString& title, const QString& path,
                          QSize pixelSize)
{
    ExportResult result;
    result.written = writeFigure(paint, background, title, path, pixelSize, &result.error);
    if (result.written)
        result.path = path;
    return result;
}

}  // namespace render
