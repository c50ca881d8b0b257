#pragma once
/** Reading back a PDF the program wrote: its page count, page size and text (poppler-utils when
 *  installed). */

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSizeF>
#include <QStandardPaths>
#include <QString>
#include <QStringList>

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

/** The text of pages first … last (1-based), whitespace collapsed; empty when pdftotext is missing. */
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
    return QString::fromUtf8(p.readAllStandardOutput()).simplified();
}

} // namespace pdftext
