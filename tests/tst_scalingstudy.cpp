#include "core/attention/scalingstudy.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>

namespace {

std::size_t indexOf(const core::ScalingStudy& s, int dk)
{
    for (std::size_t i = 0; i < s.dk.size(); ++i)
        if (s.dk[i] == dk)
            return i;
    return std::size_t(-1);
}

}  // namespace

class TestScalingStudy : public QObject {
    Q_OBJECT

private:
    core::ScalingStudy m_study;

private slots:
    void initTestCase()
    {
        QElapsedTimer timer;
        timer.start();
        m_study = core::runScalingStudy();
        qInfo("the default sweep took %lld ms", qlonglong(timer.elapsed()));
    }

    void shapeOfTheResult()
    {
        const auto& s = m_study;
        QCOMPARE(s.dk, core::defaultScalingDks());
        QCOMPARE(s.dk.front(), 1);
        QCOMPARE(s.dk.back(), 512);
        for (const auto* v : {&s.spreadUnscaled, &s.spreadScaled, &s.maxWeightUnscaled, &s.maxWeightScaled,
                              &s.entropyUnscaled, &s.entropyScaled, &s.gradientUnscaled, &s.gradientScaled})
            QCOMPARE(v->size(), s.dk.size());
        QCOMPARE(s.keys, 64);
        QCOMPARE(s.maxEntropy, std::log(64.0));
        QCOMPARE(s.rows, 32 * 16);
    }

    void scaledSpreadStaysNearOne()
    {
        for (std::size_t i = 0; i < m_study.dk.size(); ++i)
            QVERIFY2(std::fabs(m_study.spreadScaled[i] - 1.0) < 0.1,
                     qPrintable(QStringLiteral("d_k %1: scaled spread %2").arg(m_study.dk[i]).arg(m_study.spreadScaled[i])));
    }

    void unscaledSpreadGrowsLikeSqrtDk()
    {
        const std::size_t one = indexOf(m_study, 1), sixtyFour = indexOf(m_study, 64), last = indexOf(m_study, 512);
        QVERIFY(one < m_study.dk.size() && sixtyFour < m_study.dk.size());
        const double ratio = m_study.spreadUnscaled[sixtyFour] / m_study.spreadUnscaled[one];
        QVERIFY2(std::fabs(ratio - 8.0) < 0.8, qPrintable(QStringLiteral("ratio %1, expected ≈ 8").arg(ratio)));
        QVERIFY2(std::fabs(m_study.spreadUnscaled[last] / std::sqrt(512.0) - 1) < 0.1,
                 qPrintable(QStringLiteral("spread at 512: %1").arg(m_study.spreadUnscaled[last])));
    }

    void unscaledSoftmaxSaturates()
    {
        const auto& s = m_study;
        const std::size_t first = 0, last = s.dk.size() - 1;
        QVERIFY(s.maxWeightUnscaled[last] > 0.9);
        QVERIFY(s.maxWeightUnscaled[last] > s.maxWeightUnscaled[first]);
        QVERIFY(s.entropyUnscaled[last] < 0.3);
        QVERIFY(s.entropyUnscaled[last] < s.entropyUnscaled[first]);
        QVERIFY(s.gradientUnscaled[last] < 0.5 * s.gradientUnscaled[indexOf(s, 4)]);
        // Past the first few d_k, each curve moves one way.
        for (std::size_t i = indexOf(s, 8); i < last; ++i) {
            QVERIFY(s.maxWeightUnscaled[i + 1] > s.maxWeightUnscaled[i] - 0.01);
            QVERIFY(s.entropyUnscaled[i + 1] < s.entropyUnscaled[i] + 0.02);
        }
    }

    void scaledSoftmaxStaysSpread()
    {
        const auto& s = m_study;
        for (std::size_t i = 0; i < s.dk.size(); ++i) {
            QVERIFY(s.maxWeightScaled[i] > 1.0 / 64 && s.maxWeightScaled[i] < 0.3);
            QVERIFY(s.entropyScaled[i] > 0.75 * s.maxEntropy && s.entropyScaled[i] <= s.maxEntropy);
            QVERIFY(std::fabs(s.gradientScaled[i] / s.gradientScaled[0] - 1) < 0.2);
        }
        QCOMPARE(s.gradientScaled[0], s.gradientUnscaled[0]);
        QVERIFY(s.gradientScaled.back() > 1.5 * s.gradientUnscaled.back());
    }

    void gradientWithinItsBounds()
    {
        // J = diag(p) − p pᵀ is positive semi-definite with trace 1 − Σp² < 1, so 0 ≤ ‖J‖_F < 1.
        for (double g : m_study.gradientUnscaled)
            QVERIFY(g >= 0 && g < 1);
        // With two keys p = (a, 1 − a) and ‖J‖_F = 2a(1 − a) ≤ ½, reached at equal weights.
        core::ScalingStudyOptions o;
        o.keys = 2;
        o.dks = {1};
        const auto two = core::runScalingStudy(o);
        QVERIFY(two.gradientScaled[0] > 0.1 && two.gradientScaled[0] <= 0.5);
        QVERIFY(two.maxWeightScaled[0] >= 0.5 && two.entropyScaled[0] <= std::log(2.0) + 1e-12);
    }

    void deterministicForASeed()
    {
        core::ScalingStudyOptions o;
        o.samples = 8;
        const auto a = core::runScalingStudy(o), b = core::runScalingStudy(o);
        QVERIFY(a.spreadUnscaled == b.spreadUnscaled);
        QVERIFY(a.gradientScaled == b.gradientScaled);
        o.seed = 2;
        const auto c = core::runScalingStudy(o);
        QVERIFY(a.spreadUnscaled != c.spreadUnscaled);
    }

    void optionsAreCleaned()
    {
        core::ScalingStudyOptions o;
        o.dks = {16, 0, -3, 4, 16, 9000, 2};
        o.samples = 2;
        const auto s = core::runScalingStudy(o);
        QCOMPARE(s.dk, std::vector<int>({2, 4, 16}));
        QCOMPARE(s.spreadScaled.size(), std::size_t(3));
        o.dks = {0};
        QVERIFY(core::runScalingStudy(o).dk.empty());
    }

    /** The default sweep runs to the end; its time is printed, not asserted (a loaded machine
     *  would make a time limit flaky). */
    void defaultSweepRuns()
    {
        QElapsedTimer timer;
        timer.start();
        const auto s = core::runScalingStudy();
        qInfo("the default sweep took %lld ms", qlonglong(timer.elapsed()));
        QVERIFY(!s.dk.empty());
    }
};

QTEST_GUILESS_MAIN(TestScalingStudy)
#include "tst_scalingstudy.moc"
