#include "printpage.h"

#include <QAbstractTextDocumentLayout>
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>

namespace exports {

QFont printFont(double points, bool bold, bool italic)
{
    QFont f;
    f.setPointSizeF(points);
    f.setBold(bold);
    f.setItalic(italic);
    return f;
}

QStringList numberedTokens(const std::vector<std::string>& tokens, std::size_t count)
{
    constexpr qsizetype longest = 40;
    QStringList out;
    for (std::size_t i = 0; i < std::min(count, tokens.size()); ++i) {
        QString token = QString::fromStdString(tokens[i]);
        if (token.size() > longest) {
            qsizetype cut = longest - 1;
            if (token.at(cut - 1).isHighSurrogate())  // never half a character
                --cut;
            token = token.left(cut) + QChar(0x2026);
        }
        out << QStringLiteral("%1 %2").arg(i + 1).arg(token);
    }
    return out;
}

QString richSymbols(const QString& plain)
{
    // "d_model", "W_Q", "q_i": a letter, "_" and letters or digits; "10000^(2i/d_model)": "^" and a group.
    static const QRegularExpression sub(QStringLiteral("(?<=[A-Za-z])_([A-Za-z0-9]+)"));
    static const QRegularExpression sup(QStringLiteral("\\^\\(([^()]*)\\)"));
    QString html = plain.toHtmlEscaped();
    html.replace(sup, QStringLiteral("<sup>\\1</sup>"));
    html.replace(sub, QStringLiteral("<sub>\\1</sub>"));
    return html;
}

RichText::RichText(const QString& html, const QFont& font, const QColor& color, double width, QPaintDevice* device)
    : m_doc(std::make_unique<QTextDocument>())
{
    m_doc->documentLayout()->setPaintDevice(device);
    m_doc->setDocumentMargin(0);
    m_doc->setDefaultFont(font);
    m_doc->setDefaultStyleSheet(QStringLiteral("body { color: %1; }").arg(color.name()));
    m_doc->setHtml(QStringLiteral("<body>%1</body>").arg(html));
    m_doc->setTextWidth(width > 0 ? width : -1);
}

RichText::~RichText() = default;
RichText::RichText(RichText&&) noexcept = default;
RichText& RichText::operator=(RichText&&) noexcept = default;

double RichText::height() const
{
    return m_doc->size().height();
}

double RichText::width() const
{
    return m_doc->textWidth() > 0 ? m_doc->idealWidth() : m_doc->size().width();
}

void RichText::paint(QPainter* painter, QPointF topLeft) const
{
    painter->save();
    painter->translate(topLeft);
    QAbstractTextDocumentLayout::PaintContext context;
    m_doc->documentLayout()->draw(painter, context);
    painter->restore();
}

void setUpPrintPage(QPdfWriter& writer, const QString& title)
{
    writer.setResolution(96);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(16, 16, 16, 14),
                                     QPageLayout::Millimeter));
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Attention Explorer"));
}

double footerHeight(QPaintDevice* device)
{
    return QFontMetricsF(printFont(7.5), device).height() * 2.2;
}

void paintFooter(QPainter* p, const QRectF& area, const QString& left, const QString& right)
{
    p->setFont(printFont(7.5));
    p->setPen(ink::muted);
    const QFontMetricsF fm(p->font());
    const QRectF r(area.left(), area.bottom() - fm.height(), area.width(), fm.height());
    p->drawText(r, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(left, Qt::ElideRight, r.width() * 0.8));
    p->drawText(r, Qt::AlignRight | Qt::AlignVCenter, right);
    p->setPen(QPen(ink::rule, 0.8));
    p->drawLine(QPointF(r.left(), r.top() - 6), QPointF(r.right(), r.top() - 6));
}

render::HeatmapStyle printHeatmapStyle(render::ColormapId colormap, render::ColourRange range)
{
    render::HeatmapStyle s;
    s.colormap = colormap;
    s.colourRange = range;
    s.font = QFont();
    s.font.setPixelSize(10);
    s.fontScale = 1.0;
    s.palette.setColor(QPalette::Base, Qt::white);
    s.palette.setColor(QPalette::Text, ink::text);
    return s;
}


} // namespace exports
