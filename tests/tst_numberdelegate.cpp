/** NumberDelegate draws each number from a kept layout: the pixels must be those of QPainter::drawText with
 *  the cell's rectangle and alignment, for every alignment, after the font changes, and when the number is
 *  too wide for its cell (elided as before). */

#include "ui/views/widgets/numberdelegate.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QStyle>
#include <QTableView>
#include <QTest>

using ui::NumberDelegate;

class TestNumberDelegate : public QObject {
    Q_OBJECT
private slots:
    void drawsAsDrawText_data();
    void drawsAsDrawText();
};

namespace {

constexpr QSize cellSize(72, 24);

/** One cell painted by the delegate (twice: the second from its kept layout) or by drawText. */
QImage paintCell(const QString& text, Qt::Alignment align, const QFont& font, bool delegate,
                 NumberDelegate& numbers, QTableView& table)
{
    QStandardItemModel model(1, 1);
    auto* item = new QStandardItem(text);
    item->setData(int(align), Qt::TextAlignmentRole);
    item->setData(QColor(Qt::black), Qt::ForegroundRole);
    model.setItem(0, 0, item);
    QStyleOptionViewItem option;
    option.initFrom(&table);
    option.widget = &table;
    option.font = font;
    option.fontMetrics = QFontMetrics(font);
    option.rect = QRect(QPoint(3, 2), cellSize);
    QImage image(cellSize + QSize(6, 4), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    if (delegate) {
        numbers.paint(&painter, option, model.index(0, 0));
        image.fill(Qt::white);
        numbers.paint(&painter, option, model.index(0, 0));
    } else {
        const int margin = table.style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, &table) + 1;
        const QRect textRect = option.rect.adjusted(margin, 0, -margin, 0);
        QString shown = text;
        if (option.fontMetrics.horizontalAdvance(text) > textRect.width())
            shown = option.fontMetrics.elidedText(text, Qt::ElideRight, textRect.width());
        painter.setFont(font);
        painter.setPen(Qt::black);
        painter.drawText(textRect, align, shown);
    }
    return image;
}

}  // namespace

void TestNumberDelegate::drawsAsDrawText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("align");
    QTest::addColumn<double>("scale");
    const int right = Qt::AlignRight | Qt::AlignVCenter;
    QTest::addRow("right") << QStringLiteral("0.4683") << right << 1.0;
    QTest::addRow("right, negative") << QStringLiteral("−12.50") << right << 1.0;
    QTest::addRow("left") << QStringLiteral("3.00") << int(Qt::AlignLeft | Qt::AlignVCenter) << 1.0;
    QTest::addRow("centre") << QStringLiteral("16") << int(Qt::AlignCenter) << 1.0;
    QTest::addRow("top right") << QStringLiteral("0.06") << int(Qt::AlignRight | Qt::AlignTop) << 1.0;
    QTest::addRow("bottom left") << QStringLiteral("0.98") << int(Qt::AlignLeft | Qt::AlignBottom) << 1.0;
    QTest::addRow("larger font") << QStringLiteral("0.4683") << right << 1.6;
    QTest::addRow("too wide, elided") << QStringLiteral("123456789.123456789") << right << 1.0;
}

void TestNumberDelegate::drawsAsDrawText()
{
    QFETCH(QString, text);
    QFETCH(int, align);
    QFETCH(double, scale);
    QTableView table;
    NumberDelegate numbers;
    QFont font = table.font();
    // A cell in the table's own font first, so that a larger font has to replace the kept layouts.
    paintCell(text, Qt::Alignment(align), font, true, numbers, table);
    font.setPointSizeF(font.pointSizeF() * scale);
    const QImage got = paintCell(text, Qt::Alignment(align), font, true, numbers, table);
    const QImage want = paintCell(text, Qt::Alignment(align), font, false, numbers, table);
    int differing = 0, inked = 0;
    for (int y = 0; y < want.height(); ++y)
        for (int x = 0; x < want.width(); ++x) {
            differing += got.pixel(x, y) != want.pixel(x, y);
            inked += want.pixel(x, y) != qRgb(255, 255, 255);
        }
    QVERIFY2(inked > 20, "the reference drew no text");
    QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 of %2 pixels differ").arg(differing).arg(got.width() * got.height())));
}

QTEST_MAIN(TestNumberDelegate)
#include "tst_numberdelegate.moc"
