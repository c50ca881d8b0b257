/** Numbers as people read them (tables, tooltips, editors, figures) and what a person types back. */

#include "ui/render/cellstyle.h"
#include "ui/render/displaynumber.h"

#include <QLocale>
#include <QTest>

#include <cmath>
#include <random>
#include <vector>

using render::Minus;

Q_DECLARE_METATYPE(render::Minus)

class TestDisplayNumber : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { QLocale::setDefault(QLocale::c()); }

    void rules_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<char>("format");
        QTest::addColumn<int>("precision");
        QTest::addColumn<Minus>("minus");
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("text");
        const int shortest = render::shortestPrecision;
        const QString c = QStringLiteral("C"), en = QStringLiteral("en_US"), de = QStringLiteral("de_DE"),
                      fr = QStringLiteral("fr_FR");
        QTest::addRow("decimals") << 0.5 << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("0.50");
        QTest::addRow("rounded") << 2.0 / 3.0 << 'f' << 3 << Minus::Hyphen << c << QStringLiteral("0.667");
        QTest::addRow("negative") << -0.25 << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("-0.25");
        QTest::addRow("typographic minus") << -0.25 << 'f' << 2 << Minus::Typographic << c << QStringLiteral("−0.25");
        QTest::addRow("rounds to zero") << -0.001 << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("0.00");
        QTest::addRow("rounds to zero, figure") << -0.001 << 'f' << 2 << Minus::Typographic << c << QStringLiteral("0.00");
        QTest::addRow("negative zero") << -0.0 << 'f' << 0 << Minus::Hyphen << c << QStringLiteral("0");
        QTest::addRow("negative zero, shortest") << -0.0 << 'g' << shortest << Minus::Hyphen << c << QStringLiteral("0");
        QTest::addRow("NaN") << double(NAN) << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("NaN");
        QTest::addRow("overflow") << double(INFINITY) << 'f' << 2 << Minus::Hyphen << c << QStringLiteral(">1.79e308");
        QTest::addRow("negative overflow") << -double(INFINITY) << 'g' << 4 << Minus::Typographic << c
                                           << QStringLiteral("<−1.79e308");
        QTest::addRow("significant digits") << 1234567.5 << 'g' << 4 << Minus::Hyphen << c << QStringLiteral("1.235e+06");
        QTest::addRow("small, typographic") << -1e-5 << 'g' << 4 << Minus::Typographic << c << QStringLiteral("−1e-05");
        QTest::addRow("shortest") << 0.9 << 'g' << shortest << Minus::Hyphen << c << QStringLiteral("0.9");
        // Fixed point up to six integer digits, then the same decimals in scientific notation: never a
        // number hundreds of digits wide (core::shownInScientific, the rule of the core's texts too).
        QTest::addRow("widest fixed") << -999999.99 << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("-999999.99");
        QTest::addRow("rounds up to a million") << 999999.996 << 'f' << 2 << Minus::Hyphen << c
                                                << QStringLiteral("1.00e+06");
        QTest::addRow("a million") << 1234567.5 << 'f' << 3 << Minus::Hyphen << c << QStringLiteral("1.235e+06");
        QTest::addRow("1e300") << 7e299 << 'f' << 2 << Minus::Hyphen << c << QStringLiteral("7.00e+299");
        QTest::addRow("-1e300, figure") << -1e300 << 'f' << 2 << Minus::Typographic << c
                                        << QStringLiteral("−1.00e+300");
        QTest::addRow("large, no decimals") << 1e15 << 'f' << 0 << Minus::Hyphen << c << QStringLiteral("1e+15");
        QTest::addRow("tiny stays 0.00") << -1e-300 << 'f' << 2 << Minus::Typographic << c << QStringLiteral("0.00");
        // English as the tables showed it before: no group separators, "e" in exponents.
        QTest::addRow("English, thousands") << 1234.5 << 'f' << 2 << Minus::Hyphen << en << QStringLiteral("1234.50");
        QTest::addRow("English, exponent") << 1e-5 << 'g' << shortest << Minus::Hyphen << en << QStringLiteral("1e-05");
        // A decimal comma where the locale writes one, and nothing else of the locale.
        QTest::addRow("German") << 0.5 << 'f' << 2 << Minus::Hyphen << de << QStringLiteral("0,50");
        QTest::addRow("German, thousands") << -1234.5 << 'f' << 1 << Minus::Hyphen << de << QStringLiteral("-1234,5");
        QTest::addRow("German, shortest") << 1.0 / 3.0 << 'g' << shortest << Minus::Hyphen << de
                                          << QStringLiteral("0,3333333333333333");
        QTest::addRow("German, exponent") << 2.5e-7 << 'g' << shortest << Minus::Hyphen << de << QStringLiteral("2,5e-07");
        QTest::addRow("German, large") << -1234567.5 << 'f' << 2 << Minus::Hyphen << de << QStringLiteral("-1,23e+06");
        QTest::addRow("German, rounds to zero") << -0.004 << 'f' << 2 << Minus::Typographic << de << QStringLiteral("0,00");
        QTest::addRow("French, figure") << -0.75 << 'f' << 2 << Minus::Typographic << fr << QStringLiteral("−0,75");
    }

    void rules()
    {
        QFETCH(double, value);
        QFETCH(char, format);
        QFETCH(int, precision);
        QFETCH(Minus, minus);
        QFETCH(QString, locale);
        QFETCH(QString, text);
        QCOMPARE(render::displayNumber(value, format, precision, minus, QLocale(locale)), text);
    }

    /** The tables follow the UI locale, which the language switch sets as the default. */
    void tablesFollowTheUiLocale()
    {
        QCOMPARE(ui::formatCell(-1234.567, 2), QStringLiteral("-1234.57"));
        QCOMPARE(ui::formatCell(-0.0001, 3), QStringLiteral("0.000"));
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        QCOMPARE(ui::formatCell(-1234.567, 2), QStringLiteral("-1234,57"));
        QCOMPARE(ui::formatCell(double(INFINITY), 2), QStringLiteral(">1.79e308"));
    }

    void parseCellText_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<double>("value");
        const QString en = QStringLiteral("en_US"), de = QStringLiteral("de_DE");
        QTest::addRow("C style") << en << QStringLiteral("0.5") << true << 0.5;
        QTest::addRow("spaces, sign, exponent") << en << QStringLiteral("  -2.5e-3 ") << true << -2.5e-3;
        QTest::addRow("English refuses a group separator") << en << QStringLiteral("1,500") << false << 0.0;
        QTest::addRow("German decimal comma") << de << QStringLiteral("0,5") << true << 0.5;
        QTest::addRow("German takes C style too") << de << QStringLiteral("0.5") << true << 0.5;
        QTest::addRow("German comma and exponent") << de << QStringLiteral("-1,25e-3") << true << -1.25e-3;
        QTest::addRow("German refuses a group separator") << de << QStringLiteral("1.500,5") << false << 0.0;
        QTest::addRow("not a number") << de << QStringLiteral("eins") << false << 0.0;
        QTest::addRow("empty") << en << QStringLiteral("  ") << false << 0.0;
        QTest::addRow("overflow") << en << QStringLiteral("1e400") << false << 0.0;
    }

    void parseCellText()
    {
        QFETCH(QString, locale);
        QFETCH(QString, typed);
        QFETCH(bool, ok);
        QFETCH(double, value);
        QLocale::setDefault(QLocale(locale));
        double v = 0;
        QCOMPARE(ui::parseCellText(typed, &v), ok);
        if (ok)
            QCOMPARE(v, value);
    }

    /** What a cell editor shows (the shortest text in the UI locale) reads back to every bit. */
    void editorTextReadsBack_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::newRow("C") << QStringLiteral("C");
        QTest::newRow("English") << QStringLiteral("en_US");
        QTest::newRow("German") << QStringLiteral("de_DE");
        QTest::newRow("Chinese") << QStringLiteral("zh_CN");
    }

    void percentages_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<QString>("text");
        QTest::addRow("half") << 0.5 << QStringLiteral("50.00");
        QTest::addRow("certain") << 1.0 << QStringLiteral("100.00");
        QTest::addRow("a hundredth of a percent") << 0.0001 << QStringLiteral("0.01");
        QTest::addRow("below it") << 0.000021 << QStringLiteral("0.0021");
        QTest::addRow("far below") << 3.456e-9 << QStringLiteral("0.00000035");
        QTest::addRow("none") << 0.0 << QStringLiteral("0.00");
    }

    void percentages()
    {
        QFETCH(double, p);
        QFETCH(QString, text);
        QCOMPARE(render::displayPercentage(p, QLocale::c()), text);
    }

    /** A change reads "=" exactly when the two probabilities read alike, else as the difference of what they read
     *  as, in the precision the new one is shown with. */
    /** Candidates of a random checkpoint lie close together: each reads apart from any other that differs, as
     *  close to its value as its decimals say, and equal ones read alike. */
    void percentagesReadApart()
    {
        const std::vector<double> ps{2.0412e-5, 2.0398e-5, 2.0412e-5, 0.4, 0.400001, 1.5e-3};
        const int extra = render::distinguishingDecimals(ps);
        QStringList texts;
        for (double p : ps)
            texts << render::displayPercentage(p, QLocale::c(), extra);
        for (std::size_t i = 0; i < ps.size(); ++i) {
            const QString& t = texts[qsizetype(i)];
            const qsizetype decimals = t.size() - t.indexOf(QLatin1Char('.')) - 1;
            QVERIFY2(decimals >= render::percentageDecimals(ps[i]), qPrintable(t));
            QVERIFY2(std::abs(t.toDouble() - 100 * ps[i]) <= 0.5 * std::pow(10.0, -double(decimals)) * 1.0001, qPrintable(t));
            for (std::size_t j = i + 1; j < ps.size(); ++j)
                QVERIFY2((ps[i] == ps[j]) == (t == texts[qsizetype(j)]), qPrintable(t + QStringLiteral(" / ") + texts[qsizetype(j)]));
        }
        // Probabilities that read apart already keep displayPercentage()'s decimals.
        QCOMPARE(render::distinguishingDecimals({0.5, 0.25, 2.1e-5}), 0);
    }

    void percentageChanges_data()
    {
        QTest::addColumn<double>("before");
        QTest::addColumn<double>("after");
        QTest::addColumn<int>("direction");
        QTest::addColumn<QString>("points");
        QTest::addRow("doubled below a hundredth of a percent") << 0.000022 << 0.000045 << 1 << QStringLiteral("0.0023");
        QTest::addRow("the same") << 0.000022 << 0.000022 << 0 << QString();
        QTest::addRow("below what two decimals show") << 0.5 << 0.50004 << 0 << QString();
        QTest::addRow("a hundredth of a point") << 0.5 << 0.5001 << 1 << QStringLiteral("0.01");
        QTest::addRow("down a point") << 0.5 << 0.49 << -1 << QStringLiteral("1.00");
        QTest::addRow("reading alike across the hundredth") << 0.000099996 << 0.0001 << 0 << QString();
        QTest::addRow("down across the hundredth") << 0.00012 << 0.000095 << -1 << QStringLiteral("0.0025");
        QTest::addRow("up across the hundredth") << 0.000095 << 0.000112 << 1 << QStringLiteral("0.0017");
        QTest::addRow("nearly equal, read apart") << 0.0000224999 << 0.0000225001 << 1 << QStringLiteral("0.0001");
        QTest::addRow("from half to almost none") << 0.5 << 0.000022 << -1 << QStringLiteral("49.9978");
        QTest::addRow("not a number") << 0.5 << std::nan("") << 0 << QString();
    }

    void percentageChanges()
    {
        QFETCH(double, before);
        QFETCH(double, after);
        QFETCH(int, direction);
        QFETCH(QString, points);
        const render::PercentageChange change = render::displayPercentageChange(before, after, QLocale::c());
        QCOMPARE(change.direction, direction);
        QCOMPARE(change.points, points);
        // "=" exactly when the two displayed numbers are equal.
        if (std::isfinite(after)) {
            const double shownBefore = render::displayPercentage(before, QLocale::c()).toDouble();
            const double shownAfter = render::displayPercentage(after, QLocale::c()).toDouble();
            QCOMPARE(change.direction == 0, shownBefore == shownAfter);
        }
    }

    void editorTextReadsBack()
    {
        QFETCH(QString, locale);
        QLocale::setDefault(QLocale(locale));
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> unit(-1, 1);
        for (int i = 0; i < 500; ++i) {
            const double v = unit(rng) * std::pow(10.0, int(rng() % 40) - 20);
            const QString text = render::displayNumber(v, 'g', render::shortestPrecision);
            double back = 0;
            QVERIFY2(ui::parseCellText(text, &back), qPrintable(text));
            QVERIFY2(back == v, qPrintable(text + QStringLiteral(" read back as ") + QString::number(back, 'g', 17)));
        }
    }
};

QTEST_GUILESS_MAIN(TestDisplayNumber)
#include "tst_displaynumber.moc"
