/** The one wording of the seven steps: the steps panel, the teaching slides, the PDF report and the
 *  walkthrough say the same title and formula for each step, for every kind of model. */

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/export/reportwriter.h"
#include "ui/render/stepwording.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/views/steps/walkthroughpanel.h"

#include <QRegularExpression>
#include <QTest>


class TestStepWording : public QObject {
    Q_OBJECT
private slots:
    void plainFormula_data()
    {
        QTest::addColumn<QString>("rich");
        QTest::addColumn<QString>("plain");
        QTest::addRow("index subscripts") << QStringLiteral("<i>q</i><sub>i</sub>·<i>k</i><sub>j</sub>") << QStringLiteral("qᵢ·kⱼ");
        QTest::addRow("two letters") << QStringLiteral("<i>w</i><sub>ij</sub>") << QStringLiteral("wᵢⱼ");
        QTest::addRow("numbers") << QStringLiteral("<i>z</i><sub>12</sub>") << QStringLiteral("z₁₂");
        QTest::addRow("no Unicode subscript") << QStringLiteral("<i>W</i><sub>Q</sub>") << QStringLiteral("W_Q");
        QTest::addRow("one letter lacks one") << QStringLiteral("d<sub>model</sub>") << QStringLiteral("d_model");
        QTest::addRow("superscript") << QStringLiteral("10000<sup>2</sup>, K<sup>T</sup>") << QStringLiteral("10000², Kᵀ");
        QTest::addRow("entities") << QStringLiteral("a &nbsp;&nbsp; b &lt; c &amp; d") << QStringLiteral("a    b < c & d");
    }

    void plainFormula()
    {
        QFETCH(QString, rich);
        QFETCH(QString, plain);
        QCOMPARE(render::plainFormula(rich), plain);
    }

    void sameWordingEverywhere_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("temperature");
        QTest::addColumn<bool>("biases");
        QTest::addRow("unscaled") << QStringLiteral("illustrated") << 1.0 << false;
        QTest::addRow("scaled") << QStringLiteral("illustrated-scaled") << 1.0 << false;
        QTest::addRow("temperature") << QStringLiteral("illustrated-scaled") << 2.5 << false;
        QTest::addRow("temperature, unscaled") << QStringLiteral("illustrated") << 0.5 << false;
        QTest::addRow("multi-head and W_O") << QStringLiteral("multi-head") << 1.0 << false;
        QTest::addRow("causal, positional encoding") << QStringLiteral("causal-sentence") << 1.0 << false;
        QTest::addRow("multi-head, W_O and biases") << QStringLiteral("multi-head") << 1.0 << true;
        QTest::addRow("biases, no W_O") << QStringLiteral("illustrated") << 1.0 << true;
    }

    void sameWordingEverywhere()
    {
        QFETCH(QString, preset);
        QFETCH(double, temperature);
        QFETCH(bool, biases);
        core::Session session = *core::preset(preset.toStdString());
        session.model.options.temperature = temperature;
        if (biases) {
            core::AttentionModel& m = session.model;
            m.bq = core::Matrix::Constant(1, m.wq.cols(), 0.5);
            m.bk = core::Matrix::Constant(1, m.wk.cols(), -0.5);
            m.bv = core::Matrix::Constant(1, m.wv.cols(), 1.0);
            if (m.wo)
                m.bo = core::Matrix::Constant(1, m.wo->cols(), 2.0);
        }
        ui::Document doc;
        ui::ViewState view;
        ui::StepsPanel panel(&doc, &view);
        doc.loadSession(session, QString());
        QVERIFY(doc.waitForTrace(30000));
        const auto trace = doc.trace();
        QVERIFY(trace);
        QVERIFY(*trace->model == session.model);

        const std::vector<ui::Slide> slides = ui::buildSlides(*trace, 0, 0);
        const QStringList reportFormulas = exports::reportStepFormulas(*trace);
        const QStringList reportTitles = exports::reportStepTitles(*trace);
        QVERIFY(slides.size() >= 7);
        QVERIFY(reportFormulas.size() >= 7);
        QCOMPARE(panel.stepCount(), render::StepWording::count);
        for (int number = 1; number <= 7; ++number) {
            const render::StepText text = render::StepWording::step(number, session.model);
            const ui::Slide& slide = slides[std::size_t(number - 1)];
            const QString at = QStringLiteral("step %1").arg(number);
            QCOMPARE(slide.step, number);
            // The formula: the panel's label, the slide and the report page say the same.
            QVERIFY2(!text.formula.isEmpty(), qPrintable(at));
            QCOMPARE(panel.stepFormula(number), text.plainFormula());
            QCOMPARE(slide.formula, panel.stepFormula(number));
            QCOMPARE(reportFormulas[number - 1], panel.stepFormula(number));
            // The title: "3 · Scores" in the panel, "Step 3 · Scores" on the slide and the report page.
            QCOMPARE(panel.stepTitle(number), QStringLiteral("%1 · %2").arg(number).arg(text.title));
            QCOMPARE(reportTitles[number - 1], QStringLiteral("Step %1 · %2").arg(number).arg(text.title));
            QVERIFY2(slide.title.startsWith(reportTitles[number - 1]), qPrintable(slide.title));
            QCOMPARE(slide.explanation, text.explanation);
        }
        // Concatenating the heads and W_O end step 7 wherever it is shown.
        const bool projected = session.model.wo.has_value() || session.model.heads() > 1;
        QCOMPARE(panel.stepFormula(7).contains(QLatin1String("concat")), projected);
        QCOMPARE(reportFormulas.size(), projected ? 8 : 7);
        // The biases are in the formulas wherever they are shown, and only when the model has them.
        QCOMPARE(panel.stepFormula(2).contains(QStringLiteral("X·W_Q + b_Q")), biases);
        QCOMPARE(reportFormulas[1].contains(QLatin1String("+ b_V")), biases);
        QCOMPARE(panel.stepFormula(7).contains(QLatin1String("+ b_O")), session.model.bo.has_value());
        if (projected)
            QCOMPARE(reportFormulas[7].contains(QLatin1String("+ b_O")), session.model.bo.has_value());
    }

    /** Step 4's words say what its formula does: the scores "go to the softmax as they are" only when neither √d_k
     *  nor a temperature divides them, and a temperature is named whenever it divides them. */
    void stepFourSaysWhatDividesTheScores_data()
    {
        QTest::addColumn<bool>("scale");
        QTest::addColumn<double>("temperature");
        QTest::addRow("neither") << false << 1.0;
        QTest::addRow("√d_k") << true << 1.0;
        QTest::addRow("temperature alone") << false << 2.0;
        QTest::addRow("both") << true << 0.5;
    }

    void stepFourSaysWhatDividesTheScores()
    {
        QFETCH(bool, scale);
        QFETCH(double, temperature);
        core::AttentionModel model = core::preset("illustrated")->model;
        model.options.scale = scale;
        model.options.temperature = temperature;
        const render::StepText step = render::StepWording::step(4, model);
        const QString words = step.explanation + step.details;
        const bool untouched = !scale && temperature == 1.0;
        QCOMPARE(step.formula.contains(QStringLiteral("÷")), !untouched);
        QCOMPARE(words.contains(QLatin1String("as they are")) || words.contains(QLatin1String("unchanged")), untouched);
        QCOMPARE(step.explanation.contains(QLatin1String("temperature")), !scale && temperature != 1.0);
        QCOMPARE(words.contains(QLatin1String("temperature")), temperature != 1.0);
    }

    void biasesInTheFormulas()
    {
        core::AttentionModel model = core::preset("illustrated")->model;
        auto formula = [&](int number) { return render::StepWording::step(number, model).plainFormula(); };
        QCOMPARE(formula(2), QStringLiteral("Q = X·W_Q    K = X·W_K    V = X·W_V"));
        model.bq = core::Matrix::Zero(1, 3);
        model.bv = core::Matrix::Zero(1, 3);
        QCOMPARE(formula(2), QStringLiteral("Q = X·W_Q + b_Q    K = X·W_K    V = X·W_V + b_V"));
        QVERIFY(render::StepWording::step(2, model).details.contains(QLatin1String("bias")));
        model.bk = core::Matrix::Zero(1, 3);
        QCOMPARE(formula(2), QStringLiteral("Q = X·W_Q + b_Q    K = X·W_K + b_K    V = X·W_V + b_V"));
        model.wo = core::Matrix::Identity(3, 3);
        QVERIFY2(formula(7).endsWith(QStringLiteral("output = concat(Z)·W_O")), qPrintable(formula(7)));
        QVERIFY(!render::StepWording::projectionDetails(model).contains(QLatin1String("b_O")));
        model.bo = core::Matrix::Zero(1, 3);
        QVERIFY2(formula(7).endsWith(QStringLiteral("output = concat(Z)·W_O + b_O")), qPrintable(formula(7)));
        QVERIFY(render::plainFormula(render::StepWording::projectionFormula(model))
                    .endsWith(QStringLiteral("output = concat·W_O + b_O")));
        QVERIFY(render::StepWording::projectionDetails(model).contains(QLatin1String("b_O")));
    }

    void equationsDoNotBreakInside()
    {
        // A narrow panel wraps a formula at its spaces: none may stand beside an operator, so that
        // "V = X·W_V + b_V" stays on one line (the report's plain text keeps its ordinary spaces).
        core::AttentionModel model = core::preset("multi-head")->model;
        model.bq = model.bk = model.bv = core::Matrix::Zero(1, model.wq.cols());
        model.bo = core::Matrix::Zero(1, model.wo->cols());
        const QRegularExpression breakable(QStringLiteral(" [=+−÷·]|[=+−÷·] "));
        QStringList formulas{render::StepWording::projectionFormula(model), render::StepWording::overallFormula(model)};
        for (int n = 1; n <= 7; ++n)
            formulas << render::StepWording::step(n, model).formula;
        for (const QString& f : formulas) {
            QVERIFY2(!f.contains(breakable), qPrintable(f));
            QVERIFY2(!render::plainFormula(f).contains(QLatin1String("&nbsp;")), qPrintable(f));
        }
        QCOMPARE(render::plainFormula(render::StepWording::step(2, model).formula),
                 QStringLiteral("Q = X·W_Q + b_Q    K = X·W_K + b_K    V = X·W_V + b_V"));
    }

    void wordingFollowsTheModel()
    {
        core::AttentionModel model = core::preset("illustrated")->model;
        auto formula = [&](int number) { return render::StepWording::step(number, model).plainFormula(); };
        QVERIFY2(formula(4).contains(QLatin1String("skipped")), qPrintable(formula(4)));
        model.options.scale = true;
        QVERIFY2(formula(4).contains(QStringLiteral("√dₖ = scores ÷ √3")), qPrintable(formula(4)));
        model.options.temperature = 2.5;
        QVERIFY2(formula(4).contains(QStringLiteral("T = 2.5")), qPrintable(formula(4)));
        QVERIFY(!formula(1).contains(QLatin1String("PE")));
        model.options.positionalEncoding = core::PositionalEncoding::Sinusoidal;
        QVERIFY(formula(1).contains(QLatin1String("+ PE")));
        QVERIFY(render::StepWording::step(5, model).note.isEmpty());
        model.options.mask = core::Mask::Causal;
        QVERIFY(!render::StepWording::step(5, model).note.isEmpty());
        QVERIFY(render::StepWording::step(0, model).title.isEmpty());
        QVERIFY(render::StepWording::step(8, model).title.isEmpty());
    }

    void walkthroughNumbersAsThePanel_data()
    {
        QTest::addColumn<bool>("scale");
        QTest::addRow("unscaled") << false;
        QTest::addRow("scaled") << true;
    }

    void walkthroughNumbersAsThePanel()
    {
        QFETCH(bool, scale);
        ui::Document doc;
        ui::ViewState view;
        ui::StepsPanel panel(&doc, &view);
        ui::WalkthroughPanel walkthrough(&doc, &view);
        core::Options options = doc.model().options;
        options.scale = scale;
        doc.setOptions(options);
        QVERIFY(doc.waitForTrace(30000));
        const QString text = walkthrough.plainText();
        // Every "k · Title" the walkthrough shows is the panel's title of step k.
        QList<int> numbers;
        static const QRegularExpression numbered(QStringLiteral("(?:^|\\t|\\n)(\\d) · ([^\\t\\n:]+)"));
        for (auto it = numbered.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            const int number = m.captured(1).toInt();
            QCOMPARE(QStringLiteral("%1 · %2").arg(number).arg(m.captured(2)), panel.stepTitle(number));
            numbers << number;
        }
        QCOMPARE(numbers, scale ? (QList<int>{3, 4, 5, 6, 7}) : (QList<int>{3, 5, 6, 7}));
    }
};

QTEST_MAIN(TestStepWording)
#include "tst_stepwording.moc"
