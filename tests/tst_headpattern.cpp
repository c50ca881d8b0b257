/** What a head does (core::describeHead) on constructed patterns whose descriptors are known by hand. */

#include "core/attention/headpattern.h"

#include <QTest>

#include <cmath>

using namespace core;

namespace {

/** Every query puts all its weight on the token before it (query 1, which has none, on itself). */
Matrix previousTokenHead(int n)
{
    Matrix w = Matrix::Zero(n, n);
    w(0, 0) = 1;
    for (int i = 1; i < n; ++i)
        w(i, i - 1) = 1;
    return w;
}

/** Causal uniform: query i spreads 1 / i over the keys 1 … i. */
Matrix uniformCausalHead(int n)
{
    Matrix w = Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j)
            w(i, j) = 1.0 / (i + 1);
    return w;
}

}  // namespace

class TestHeadPattern : public QObject {
    Q_OBJECT

private slots:
    void previousTokenHeadIsNamed()
    {
        const auto d = describeHead(previousTokenHead(8), true);
        QCOMPARE(d.previousToken, 1.0);
        QCOMPARE(d.firstToken, 1.0 / 7);  // query 2's previous token is the first
        QCOMPARE(d.diagonal, 1.0 / 8);    // query 1 on itself
        QCOMPARE(d.meanEntropy, 0.0);
        QCOMPARE(d.pattern, HeadPattern::PreviousToken);
        QCOMPARE(headPatternKey(d.pattern), "previous_token");
    }

    void sinkHeadIsNamed()
    {
        // 90 % on the first token, the rest on the query itself.
        const int n = 6;
        Matrix w = Matrix::Zero(n, n);
        w(0, 0) = 1;
        for (int i = 1; i < n; ++i) {
            w(i, 0) = 0.9;
            w(i, i) = 0.1;
        }
        const auto d = describeHead(w, true);
        QVERIFY(qFuzzyCompare(d.firstToken, 0.9));
        QVERIFY(qFuzzyCompare(d.diagonal, (1.0 + 5 * 0.1) / 6));
        QVERIFY(qFuzzyCompare(d.previousToken, 0.9 / 5));  // only query 2's previous token is the first
        const double h = -(0.9 * std::log(0.9) + 0.1 * std::log(0.1));
        QVERIFY(qFuzzyCompare(d.meanEntropy, 5 * h / 6));
        QCOMPARE(d.pattern, HeadPattern::FirstToken);
    }

    void diagonalHeadIsNamed()
    {
        const auto d = describeHead(Matrix::Identity(5, 5), false);
        QCOMPARE(d.diagonal, 1.0);
        QCOMPARE(d.previousToken, 0.0);
        QCOMPARE(d.pattern, HeadPattern::Diagonal);
    }

    void uniformHeadIsBroad()
    {
        const int n = 8;
        const auto d = describeHead(uniformCausalHead(n), true);
        // Every row that sees more than one key is exactly uniform over what it sees.
        QVERIFY(qFuzzyCompare(d.normalisedEntropy, 1.0));
        double entropy = 0;
        for (int i = 1; i <= n; ++i)
            entropy += std::log(double(i));
        QVERIFY(qFuzzyCompare(d.meanEntropy, entropy / n));
        double previous = 0;
        for (int i = 2; i <= n; ++i)
            previous += 1.0 / i;
        QVERIFY(qFuzzyCompare(d.previousToken, previous / (n - 1)));
        QCOMPARE(d.pattern, HeadPattern::Broad);

        // Without a mask, uniform over all n keys.
        const auto full = describeHead(Matrix::Constant(n, n, 1.0 / n), false);
        QVERIFY(qFuzzyCompare(full.normalisedEntropy, 1.0));
        QVERIFY(qFuzzyCompare(full.meanEntropy, std::log(double(n))));
        QCOMPARE(full.pattern, HeadPattern::Broad);
    }

    void thresholdsDecide()
    {
        // Each query 0.45 on the previous token and 0.55 on itself: the diagonal's share passes one half.
        const int n = 10;
        Matrix w = Matrix::Zero(n, n);
        w(0, 0) = 1;
        for (int i = 1; i < n; ++i) {
            w(i, i - 1) += 0.45;
            w(i, i) += 0.55;
        }
        // previous 0.45, diagonal (1 + 9·0.55) / 10 = 0.595: diagonal by the threshold.
        QCOMPARE(describeHead(w, true).pattern, HeadPattern::Diagonal);
        // Then 0.45 previous, 0.3 itself, 0.25 first: no share reaches one half, and rows of three keys
        // among up to ten are far from uniform: mixed.
        for (int i = 1; i < n; ++i) {
            w(i, i) = 0.3;
            w(i, i - 1) = 0.45;
            w(i, 0) += 0.25;
        }
        const auto d = describeHead(w, true);
        QVERIFY(d.previousToken < patternShareThreshold && d.firstToken < patternShareThreshold
                && d.diagonal < patternShareThreshold);
        QVERIFY(d.normalisedEntropy < broadEntropyThreshold);
        QCOMPARE(d.pattern, HeadPattern::Mixed);
    }

    void floatMatrixGivesTheSame()
    {
        const Matrix w = uniformCausalHead(7);
        const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> f = w.cast<float>();
        const auto a = describeHead(w, true), b = describeHead(f, true);
        QVERIFY(std::abs(a.meanEntropy - b.meanEntropy) < 1e-6);
        QVERIFY(std::abs(a.previousToken - b.previousToken) < 1e-6);
        QCOMPARE(a.pattern, b.pattern);
    }

    /** The head detector's scores (TransformerLens's, error measure "mul") on the text [B a b c a b c]: Σ w·P / Σ w,
     *  worked out here by hand from its patterns. */
    void detectorScoresFollowTheirDefinition()
    {
        const std::vector<int> tokens{0, 5, 6, 7, 5, 6, 7};
        using Weights = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        // Induction: the second copy's a, b, c look at the token after their earlier copy (b, c, the second a).
        Weights induction = Weights::Zero(7, 7);
        induction.col(0).setOnes();
        for (int i : {4, 5, 6})
            induction.row(i).setZero();
        induction(4, 2) = 1;
        induction(5, 3) = 1;
        induction(6, 4) = 0.5f;  // half on its target, half on the first token
        induction(6, 0) = 0.5f;
        QCOMPARE(inductionScore(induction, tokens), 2.5 / 7);
        QCOMPARE(duplicateTokenScore(induction, tokens), 0.0);
        // Duplicate token: the second copy looks at its earlier copy itself.
        Weights duplicate = Weights::Zero(7, 7);
        duplicate.col(0).setOnes();
        for (int i : {4, 5, 6}) {
            duplicate(i, 0) = 0;
            duplicate(i, i - 3) = 1;
        }
        QCOMPARE(duplicateTokenScore(duplicate, tokens), 3.0 / 7);
        QCOMPARE(inductionScore(duplicate, tokens), 0.0);
        // A previous-token head is an induction head only where a token follows its own copy: nowhere here.
        QCOMPARE(inductionScore(previousTokenHead(7).cast<float>(), tokens), 0.0);
        // The weights' sum is the denominator, not the count of rows.
        QCOMPARE(inductionScore(2 * induction, tokens), 2.5 / 7);
        QCOMPARE(inductionScore(Weights::Zero(7, 7), tokens), 0.0);
    }

    void emptyAndOneToken()
    {
        QCOMPARE(describeHead(Matrix(0, 0), true).pattern, HeadPattern::Mixed);
        const auto one = describeHead(Matrix::Ones(1, 1), true);
        QCOMPARE(one.diagonal, 1.0);
        QCOMPARE(one.previousToken, 0.0);
        QCOMPARE(one.pattern, HeadPattern::Diagonal);
    }
};

QTEST_APPLESS_MAIN(TestHeadPattern)
#include "tst_headpattern.moc"
