#pragma once
/** Reading back a PDF the program wrote: its page count, page size, text and pages as pixels (poppler-utils
 *  when installed). */

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QSizeF>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace pdftext {

/** What pdfinfo says about the file; empty when pdfinfo is missing or fails. */
inline QString pdfinfo(const QString& path)
{
    const QString pdfinfo = QStandardPaths::findExecutable(QStringLiteral("pdfinfo"));
    if (pdfinfo.isEmpty())
        return {};
    QProcess p;
    p.start(pdfinfo, {path});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput());
}

/** Pages of a PDF: pdfinfo's count when it is installed, else the page objects in the file. */
inline int pageCount(const QString& path)
{
    if (!QStandardPaths::findExecutable(QStringLiteral("pdfinfo")).isEmpty()) {
        const auto m = QRegularExpression(QStringLiteral("Pages:\\s+(\\d+)")).match(pdfinfo(path));
        return m.hasMatch() ? m.captured(1).toInt() : -1;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return int(QString::fromLatin1(f.readAll()).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))));
}

/** The size of the first page in points; empty when pdfinfo is missing. */
inline QSizeF pageSize(const QString& path)
{
    const auto m = QRegularExpression(QStringLiteral("Page size:\\s+([\\d.]+) x ([\\d.]+) pts")).match(pdfinfo(path));
    return m.hasMatch() ? QSizeF(m.captured(1).toDouble(), m.captured(2).toDouble()) : QSizeF();
}

/** How pdftotext orders the text: as a reader would, or as it was painted (a formula's pieces stay together). */
enum class Order { Reading, Painted };

/** The text of pages first … last (1-based), whitespace collapsed, ligatures as their letters; empty when
 *  pdftotext is missing. */
inline QString pdfText(const QString& path, int first = 0, int last = 0, Order order = Order::Reading)
{
    const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
    if (pdftotext.isEmpty())
        return {};
    QStringList args;
    if (order == Order::Painted)
        args << QStringLiteral("-raw");
    if (first > 0)
        args << QStringLiteral("-f") << QString::number(first) << QStringLiteral("-l") << QString::number(last);
    args << path << QStringLiteral("-");
    QProcess p;
    p.start(pdftotext, args);
    p.waitForFinished(60000);
    // The fonts' ligatures come back as one character ("ﬁxed"): read as the letters they join.
    return QString::fromUtf8(p.readAllStandardOutput())
        .replace(QChar(0xFB01), QLatin1String("fi"))
        .replace(QChar(0xFB02), QLatin1String("fl"))
        .simplified();
}

/** Page `page` (1-based) of a PDF as pixels at dpi; a null image when pdftoppm is missing or fails. */
inline QImage pdfPage(const QString& path, int page, int dpi = 72)
{
    const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    QTemporaryDir dir;
    if (pdftoppm.isEmpty() || !dir.isValid())
        return {};
    const QString prefix = dir.filePath(QStringLiteral("page"));
    QProcess p;
    p.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-f"),
                       QString::number(page), QStringLiteral("-l"), QString::number(page), QStringLiteral("-singlefile"),
                       path, prefix});
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QImage(prefix + QStringLiteral(".png"));
}

} // namespace pdftext
