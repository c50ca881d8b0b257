/** The arithmetic behind every cell: texts of the worked example and sums that add up. */

#include "core/attention/attention.h"
#include "core/attention/derivation.h"
#include "core/session/presets.h"
#include "testutil.h"

#include <QTest>

#include <cmath>

using namespace core;

Q_DECLARE_METATYPE(core::Step)

namespace {

bool close(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

QByteArray describe(const Derivation& d)
{
    return QByteArray::fromStdString(d.text(17)) + " (value " + QByteArray::number(d.value, 'g', 17) + ")";
}

}  // namespace

class TestDerivation : public QObject {
    Q_OBJECT

private slots:
    void workedExampleTexts_data();
    void workedExampleTexts();
    void biasTexts_data();
    void biasTexts();
    void everyCellAddsUp_data();
    void everyCellAddsUp();
    void longSums();
    void maskedWeight();
    void overflowedScoresAddUp();
    void sources();
    void subscripts();
    void outOfRange_data();
    void outOfRange();
};

void TestDerivation::workedExampleTexts_data()
{
    QTest::addColumn<QString>("presetName");
    QTest::addColumn<Step>("step");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("text");

    const QString plain = QStringLiteral("illustrated"), scaled = QStringLiteral("illustrated-scaled");
    QTest::addRow("score(1,2)") << plain << Step::Scores << 0 << 1
                                << QStringLiteral("score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4");
    QTest::addRow("score(2,2)") << plain << Step::Scores << 1 << 1
                                << QStringLiteral("score(2,2) = q₂·k₂ = 2·4 + 2·4 + 2·0 = 16");
    QTest::addRow("k(2,1)") << plain << Step::Keys << 1 << 0
                            << QStringLiteral("k(2,1) = x₂·W_K[:,1] = 0·0 + 2·1 + 0·0 + 2·1 = 4");
    QTest::addRow("w(1,1)") << plain << Step::Weights << 0 << 0
                            << QStringLiteral("w(1,1) = exp(s(1,1) − max) / Σₖ exp(s(1,k) − max) = exp(2 − 4) / "
                                              "(exp(2 − 4) + exp(4 − 4) + exp(4 − 4)) = 0.1353 / 2.1353 = 0.0634");
    QTest::addRow("z(1,1)") << plain << Step::Outputs << 0 << 0
                            << QStringLiteral("z(1,1) = Σⱼ w(1,j)·v(j,1) = 0.0634·1 + 0.4683·2 + 0.4683·2 = 1.9366");
    QTest::addRow("scaled(1,2)") << scaled << Step::ScaledScores << 0 << 1
                                 << QStringLiteral("scaled(1,2) = score(1,2) / √d_k = 4 / √3 = 2.3094");
    QTest::addRow("x(1,1)") << plain << Step::X << 0 << 0 << QStringLiteral("x(1,1) = 1");
    QTest::addRow("W_Q(4,3)") << plain << Step::WeightQuery << 3 << 2 << QStringLiteral("W_Q(4,3) = 1");
}

void TestDerivation::workedExampleTexts()
{
    QFETCH(QString, presetName);
    QFETCH(Step, step);
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(QString, text);
    const auto session = preset(presetName.toStdString());
    QVERIFY(session);
    const Trace t = compute(session->model);
    const Derivation d = derive(t, {step, 0, row, col});
    QCOMPARE(QString::fromStdString(d.text()), text);
    QCOMPARE(d.value, t.value(step, 0, row, col));
}

void TestDerivation::biasTexts_data()
{
    QTest::addColumn<Step>("step");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<QString>("text");
    // The worked example with b_Q = [1, 0.5, −2], b_K = [0.5, 0, 0], no b_V, W_O = I and b_O = [0, 0, −0.25]:
    // x₁ = [1, 0, 1, 0], x₂ = [0, 2, 0, 2]; W_Q's columns 2 and 3 are [0, 0, 0, 1] and [1, 0, 1, 1], W_K's
    // column 1 is [0, 1, 0, 1]; the bias is the last term of the sum.
    QTest::addRow("q(1,2)") << Step::Queries << 0 << 1
                            << QStringLiteral("q(1,2) = x₁·W_Q[:,2] + b_Q[2] = 1·0 + 0·0 + 1·0 + 0·1 + 0.5 = 0.5");
    QTest::addRow("q(1,3)") << Step::Queries << 0 << 2
                            << QStringLiteral("q(1,3) = x₁·W_Q[:,3] + b_Q[3] = 1·1 + 0·0 + 1·1 + 0·1 + (-2) = 0");
    QTest::addRow("k(2,1)") << Step::Keys << 1 << 0
                            << QStringLiteral("k(2,1) = x₂·W_K[:,1] + b_K[1] = 0·0 + 2·1 + 0·0 + 2·1 + 0.5 = 4.5");
    QTest::addRow("v(2,1) without a bias") << Step::Values << 1 << 0
                                           << QStringLiteral("v(2,1) = x₂·W_V[:,1] = 0·0 + 2·0 + 0·1 + 2·1 = 2");
}

void TestDerivation::biasTexts()
{
    QFETCH(Step, step);
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(QString, text);
    AttentionModel m = illustratedModel();
    m.bq = testutil::mat({{1, 0.5, -2}});
    m.bk = testutil::mat({{0.5, 0, 0}});
    m.wo = Matrix::Identity(3, 3);
    m.bo = testutil::mat({{0, 0, -0.25}});
    const Trace t = compute(m);
    const Derivation d = derive(t, {step, 0, row, col});
    QCOMPARE(QString::fromStdString(d.text()), text);
    QCOMPARE(d.value, t.value(step, 0, row, col));
    QCOMPARE(d.bias.has_value(), step != Step::Values);

    // out(1,3) = concat₁·W_O[:,3] + b_O[3]: with W_O = I the sum is z(1,3) alone, then the bias.
    const Derivation out = derive(t, {Step::Output, 0, 0, 2});
    QVERIFY2(out.text(4).starts_with("out(1,3) = concat₁·W_O[:,3] + b_O[3] = "), out.text(4).c_str());
    QVERIFY2(out.text(4).ends_with(" + (-0.25) = " + formatNumber(t.concat(0, 2) - 0.25, 4)), out.text(4).c_str());
    QCOMPARE(out.bias, std::optional<double>(-0.25));
    QCOMPARE(out.value, t.concat(0, 2) - 0.25);
}

void TestDerivation::everyCellAddsUp_data()
{
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("causal");
    QTest::addColumn<bool>("sinusoidal");
    QTest::addColumn<bool>("withOutput");
    QTest::addColumn<double>("temperature");
    QTest::addColumn<bool>("biases");
    QTest::addRow("1 head") << 1 << false << false << false << 1.0 << false;
    QTest::addRow("2 heads, W_O, PE") << 2 << false << true << true << 1.0 << false;
    QTest::addRow("3 heads causal, T=0.4") << 3 << true << true << true << 0.4 << false;
    QTest::addRow("1 head, biases") << 1 << false << false << false << 1.0 << true;
    QTest::addRow("3 heads causal, W_O, biases") << 3 << true << true << true << 0.4 << true;
}

void TestDerivation::everyCellAddsUp()
{
    QFETCH(int, heads);
    QFETCH(bool, causal);
    QFETCH(bool, sinusoidal);
    QFETCH(bool, withOutput);
    QFETCH(double, temperature);
    QFETCH(bool, biases);
    std::mt19937_64 rng{std::uint64_t(heads)};
    AttentionModel m = testutil::randomModel(rng, 6, 5, heads, 3, 2, withOutput ? 4 : 0);
    if (biases) {
        m.bq = testutil::randomMatrix(rng, 1, int(m.wq.cols()), -2, 2);
        m.bk = testutil::randomMatrix(rng, 1, int(m.wk.cols()), -2, 2);
        m.bv = testutil::randomMatrix(rng, 1, int(m.wv.cols()), -2, 2);
        if (m.wo)
            m.bo = testutil::randomMatrix(rng, 1, int(m.wo->cols()), -2, 2);
    }
    m.options.mask = causal ? Mask::Causal : Mask::None;
    m.options.positionalEncoding = sinusoidal ? PositionalEncoding::Sinusoidal : PositionalEncoding::None;
    m.options.temperature = temperature;
    const Trace t = compute(m);

    std::vector<Step> steps = computedSteps();
    for (Step s : {Step::WeightQuery, Step::WeightKey, Step::WeightValue, Step::WeightOutput})
        steps.push_back(s);
    int checked = 0;
    for (Step step : steps) {
        for (int h = 0; h < (isPerHead(step) ? heads : 1); ++h) {
            const auto [rows, cols] = t.stepShape(step, h);
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) {
                    const Derivation d = derive(t, {step, h, r, c});
                    QVERIFY2(!d.name.empty(), stepKey(step));
                    QVERIFY(!d.text().empty());
                    QCOMPARE(d.value, t.value(step, h, r, c));
                    QCOMPARE(d.cell, (CellRef{step, h, r, c}));
                    switch (d.kind) {
                    case Derivation::Kind::DotProduct:
                    case Derivation::Kind::WeightedSum: {
                        QCOMPARE(int(d.terms.size()), std::min(d.totalTerms, Derivation::maxTerms));
                        double sum = 0, magnitude = 0;
                        for (const auto& term : d.terms) {
                            sum += term.a * term.b;
                            magnitude += std::fabs(term.a * term.b);
                        }
                        // Q, K, V and the output end with their bias when the model has one.
                        const bool biased = biases && step != Step::Scores && step != Step::Outputs;
                        QCOMPARE(d.bias.has_value(), biased);
                        if (biased) {
                            const std::optional<Matrix>& b = step == Step::Queries ? m.bq
                                : step == Step::Keys                               ? m.bk
                                : step == Step::Values                             ? m.bv
                                                                                   : m.bo;
                            const int width = step == Step::Values ? 2 : 3;
                            QCOMPARE(*d.bias, (*b)(0, step == Step::Output ? c : h * width + c));
                            QVERIFY(d.text().find(" + " + formatNumber(*d.bias, 4) + " = ") != std::string::npos
                                    || d.text().find(" + (" + formatNumber(*d.bias, 4) + ") = ") != std::string::npos);
                            sum += *d.bias;
                            magnitude += std::fabs(*d.bias);
                        }
                        QVERIFY2(std::fabs(sum - d.value) <= 1e-12 * std::max(1.0, magnitude), describe(d).constData());
                        break;
                    }
                    case Derivation::Kind::Softmax:
                        if (d.masked) {
                            QCOMPARE(d.value, 0.0);
                        } else {
                            QVERIFY2(close(std::exp(d.numeratorArg - d.rowMax) / d.denominator, d.value, 1e-12),
                                     describe(d).constData());
                            double sum = 0;
                            for (const auto& term : d.terms) {
                                QCOMPARE(term.b, std::exp(term.a - d.rowMax));
                                sum += term.b;
                            }
                            QVERIFY(close(sum, d.denominator, 1e-15));
                            QCOMPARE(d.totalTerms, causal ? r + 1 : 6);
                        }
                        break;
                    case Derivation::Kind::Scale:
                        QVERIFY2(close(d.numeratorArg * d.scaleFactor, d.value, 1e-15), describe(d).constData());
                        QCOMPARE(d.numeratorArg, t.heads[std::size_t(h)].scores(r, c));
                        QCOMPARE(d.dk, 3);
                        QCOMPARE(d.temperature, temperature);
                        break;
                    case Derivation::Kind::Sum:
                        QVERIFY(sinusoidal);
                        QCOMPARE(d.numeratorArg, m.embeddings(r, c));
                        QVERIFY(close(d.numeratorArg + d.scaleFactor, d.value, 1e-15));
                        break;
                    case Derivation::Kind::Copy: {
                        QCOMPARE(int(d.sources.size()), 1);
                        const CellRef& src = d.sources[0];
                        QCOMPARE(d.value, t.value(src.step, src.head, src.row, src.col));
                        break;
                    }
                    case Derivation::Kind::Input:
                        QVERIFY(step != Step::X || !sinusoidal);
                        QCOMPARE(d.value, t.inputMatrix(step) ? (*t.inputMatrix(step))(r, c) : NAN);
                        break;
                    }
                    ++checked;
                }
        }
    }
    QVERIFY(checked > 250);
}

void TestDerivation::longSums()
{
    std::mt19937_64 rng(64);
    AttentionModel m = testutil::randomModel(rng, 12, 80, 1, 64, 64);
    const Trace t = compute(m);
    const Derivation score = derive(t, {Step::Scores, 0, 3, 5});
    QCOMPARE(score.totalTerms, 64);
    QCOMPARE(int(score.terms.size()), Derivation::maxTerms);
    QCOMPARE(score.value, t.heads[0].scores(3, 5));  // the whole sum, not the shown terms
    const std::string text = score.text();
    QVERIFY2(text.find("… (56 more)") != std::string::npos, text.c_str());
    QVERIFY2(text.rfind(" = " + core::formatNumber(score.value)) == text.size() - 3 - core::formatNumber(score.value).size(),
             text.c_str());
    for (int k = 0; k < Derivation::maxTerms; ++k) {
        QCOMPARE(score.terms[std::size_t(k)].a, t.heads[0].queries(3, k));
        QCOMPARE(score.terms[std::size_t(k)].b, t.heads[0].keys(5, k));
    }

    const Derivation q = derive(t, {Step::Queries, 0, 2, 7});
    QCOMPARE(q.totalTerms, 80);
    QVERIFY(q.text().find("(72 more)") != std::string::npos);
    double full = 0;
    for (int k = 0; k < 80; ++k)
        full += t.x()(2, k) * m.wq(k, 7);
    QVERIFY(close(q.value, full, 1e-12));

    const Derivation w = derive(t, {Step::Weights, 0, 4, 4});
    QCOMPARE(w.totalTerms, 12);
    QCOMPARE(int(w.terms.size()), Derivation::maxTerms);
    QVERIFY(w.text().find("(4 more)") != std::string::npos);
    QVERIFY(close(std::exp(w.numeratorArg - w.rowMax) / w.denominator, w.value, 1e-12));
}

void TestDerivation::maskedWeight()
{
    AttentionModel m = illustratedModel();
    m.options.mask = Mask::Causal;
    const Trace t = compute(m);
    const Derivation d = derive(t, {Step::Weights, 0, 0, 2});
    QVERIFY(d.masked);
    QCOMPARE(d.value, 0.0);
    QCOMPARE(QString::fromStdString(d.text()), QStringLiteral("w(1,3) = 0 (causal mask: key 3 comes after query 1)"));
    const Derivation live = derive(t, {Step::Weights, 0, 1, 1});
    QVERIFY(!live.masked);
    QCOMPARE(live.totalTerms, 2);  // only keys 1 and 2 take part
    QVERIFY(close(std::exp(live.numeratorArg - live.rowMax) / live.denominator, live.value, 1e-15));
}

void TestDerivation::overflowedScoresAddUp()
{
    // Scores beyond double range (inputs of 1e300): the softmax's arithmetic is shown in its limit, the
    // +∞ scores sharing the row, and its numbers give the weight the engine computed.
    AttentionModel m = illustratedModel();
    m.embeddings = testutil::mat({{1e300, 1e300, 0, 0}, {-1e300, 1e300, 0, 0}, {1e300, 1e300, 1e300, 0}});
    m.wq = m.wk = m.wv = Matrix::Ones(4, 3);
    m.options.scale = false;
    const Trace t = compute(m);
    QVERIFY(std::isinf(t.heads[0].scores(0, 0)));
    for (int i = 0; i < 3; ++i) {
        double total = 0;
        for (int j = 0; j < 3; ++j) {
            const Derivation d = derive(t, {Step::Weights, 0, i, j});
            const QString text = QString::fromStdString(d.text(4));
            QVERIFY2(!text.contains(QStringLiteral("nan"), Qt::CaseInsensitive) && !text.contains(QStringLiteral("inf"))
                         && !text.contains(QStringLiteral("∞")),
                     qPrintable(text));
            QCOMPARE(d.value, t.heads[0].weights(i, j));
            double numerator = 0, denominator = 0;
            for (const auto& term : d.terms)
                denominator += term.b;
            QCOMPARE(denominator, d.denominator);
            numerator = d.terms[std::size_t(j)].b;
            QCOMPARE(numerator / denominator, d.value);
            total += d.value;
        }
        QCOMPARE(total, 1.0);
    }
}

void TestDerivation::sources()
{
    std::mt19937_64 rng(5);
    const AttentionModel m = testutil::randomModel(rng, 4, 3, 2, 2, 3, 2);
    const Trace t = compute(m);
    using V = std::vector<CellRef>;
    QCOMPARE(derive(t, {Step::Scores, 1, 2, 3}).sources, (V{{Step::Queries, 1, 2, -1}, {Step::Keys, 1, 3, -1}}));
    QCOMPARE(derive(t, {Step::Queries, 1, 2, 1}).sources, (V{{Step::X, 0, 2, -1}, {Step::WeightQuery, 0, -1, 3}}));
    QCOMPARE(derive(t, {Step::Values, 1, 0, 2}).sources, (V{{Step::X, 0, 0, -1}, {Step::WeightValue, 0, -1, 5}}));
    QCOMPARE(derive(t, {Step::ScaledScores, 0, 1, 2}).sources, (V{{Step::Scores, 0, 1, 2}}));
    QCOMPARE(derive(t, {Step::Weights, 1, 3, 0}).sources, (V{{Step::ScaledScores, 1, 3, -1}}));
    QCOMPARE(derive(t, {Step::Outputs, 1, 3, 2}).sources, (V{{Step::Weights, 1, 3, -1}, {Step::Values, 1, -1, 2}}));
    QCOMPARE(derive(t, {Step::Concat, 0, 1, 4}).sources, (V{{Step::Outputs, 1, 1, 1}}));
    QCOMPARE(derive(t, {Step::Concat, 0, 1, 4}).otherHead, 1);
    QCOMPARE(derive(t, {Step::Output, 0, 3, 1}).sources, (V{{Step::Concat, 0, 3, -1}, {Step::WeightOutput, 0, -1, 1}}));
    QVERIFY(derive(t, {Step::Queries, 1, 2, 1}).text().find("[head 2]") != std::string::npos);
    // the values a derivation's sum uses are the cells its sources name
    const Derivation q = derive(t, {Step::Queries, 1, 2, 1});
    for (int k = 0; k < 3; ++k) {
        QCOMPARE(q.terms[std::size_t(k)].a, t.x()(2, k));
        QCOMPARE(q.terms[std::size_t(k)].b, m.wq(k, 3));
    }
}

void TestDerivation::subscripts()
{
    QCOMPARE(QString::fromStdString(subscript(1)), QStringLiteral("₁"));
    QCOMPARE(QString::fromStdString(subscript(12)), QStringLiteral("₁₂"));
    QCOMPARE(QString::fromStdString(subscript(905)), QStringLiteral("₉₀₅"));
}

void TestDerivation::outOfRange_data()
{
    QTest::addColumn<Step>("step");
    QTest::addColumn<int>("head");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addRow("row past the end") << Step::Scores << 0 << 3 << 0;
    QTest::addRow("col past the end") << Step::Queries << 0 << 0 << 3;
    QTest::addRow("negative row") << Step::Weights << 0 << -1 << 0;
    QTest::addRow("whole row") << Step::X << 0 << 0 << -1;
    QTest::addRow("head past the end") << Step::Scores << 1 << 0 << 0;
    QTest::addRow("negative head") << Step::Outputs << -1 << 0 << 0;
    QTest::addRow("no W_O") << Step::WeightOutput << 0 << 0 << 0;
    QTest::addRow("huge") << Step::Output << 0 << 1 << 1000000;
}

void TestDerivation::outOfRange()
{
    QFETCH(Step, step);
    QFETCH(int, head);
    QFETCH(int, row);
    QFETCH(int, col);
    const Trace t = compute(illustratedModel());
    const Derivation d = derive(t, {step, head, row, col});
    QCOMPARE(d.kind, Derivation::Kind::Input);
    QVERIFY(d.name.empty());
    QVERIFY(d.text().empty());
    QVERIFY(d.terms.empty());
    QVERIFY(d.sources.empty());
}

QTEST_APPLESS_MAIN(TestDerivation)
#include "tst_derivation.moc"
