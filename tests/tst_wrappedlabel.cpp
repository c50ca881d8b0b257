/** WrappedLabel keeps its heights per width: every answer must still be the one a plain word-wrapped QLabel
 *  gives for the same text, font, format and margins, through changes of each of them. */

#include "ui/views/widgets/wrappedlabel.h"

#include <QApplication>
#include <QTest>

using ui::WrappedLabel;

class TestWrappedLabel : public QObject {
    Q_OBJECT
private slots:
    void answersAsQLabel_data();
    void answersAsQLabel();
    void followsEveryChange();
    void alternatingWidths();
};

namespace {

const QString longRich = QStringLiteral(
    "<i>w</i><sub>1,2</sub> = exp(<i>s</i><sub>1,2</sub> − max) ÷ Σ<sub>j</sub> exp(<i>s</i><sub>1,j</sub> − max), "
    "for every key of the row, the weights add up to one");
const QString longPlain = QStringLiteral(
    "score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4, and the same sum for every query and key of the sentence");

/** A plain QLabel set up as label is: the answer WrappedLabel must give. */
int plainHeight(const WrappedLabel& label, int width)
{
    QLabel plain;
    plain.setWordWrap(true);
    plain.setTextFormat(label.textFormat());
    plain.setFont(label.font());
    plain.setContentsMargins(label.contentsMargins());
    plain.setText(label.text());
    return plain.heightForWidth(width);
}

}  // namespace

void TestWrappedLabel::answersAsQLabel_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("format");
    QTest::addRow("rich") << longRich << int(Qt::RichText);
    QTest::addRow("plain") << longPlain << int(Qt::PlainText);
}

void TestWrappedLabel::answersAsQLabel()
{
    QFETCH(QString, text);
    QFETCH(int, format);
    WrappedLabel label;
    label.setTextFormat(Qt::TextFormat(format));
    label.setText(text);
    QVERIFY(label.wordWrap());
    QVERIFY(label.hasHeightForWidth());
    for (int width : {80, 160, 320, 640, 1280, 160, 80})
        QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
    // The text wraps: a narrow label is taller than a wide one.
    QVERIFY(label.heightForWidth(80) > label.heightForWidth(1280));
}

void TestWrappedLabel::followsEveryChange()
{
    WrappedLabel label(QStringLiteral("short"));
    const int width = 120;
    const int shortHeight = label.heightForWidth(width);
    QCOMPARE(shortHeight, plainHeight(label, width));

    label.setText(longPlain);
    QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
    QVERIFY(label.heightForWidth(width) > shortHeight);

    QFont big = label.font();
    big.setPointSizeF(big.pointSizeF() * 2);
    const int before = label.heightForWidth(width);
    label.setFont(big);
    QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
    QVERIFY(label.heightForWidth(width) > before);

    const int unmargined = label.heightForWidth(width);
    label.setContentsMargins(0, 20, 0, 20);
    QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
    QCOMPARE(label.heightForWidth(width), unmargined + 40);

    label.setTextFormat(Qt::RichText);
    label.setText(longRich);
    QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
}

void TestWrappedLabel::alternatingWidths()
{
    // A layout asks for a few widths in turn; more widths than are kept must still all be answered right.
    WrappedLabel label(longPlain);
    for (int round = 0; round < 3; ++round)
        for (int width = 60; width <= 600; width += 90)
            QCOMPARE(label.heightForWidth(width), plainHeight(label, width));
}

QTEST_MAIN(TestWrappedLabel)
#include "tst_wrappedlabel.moc"
