/** The teaching slides as a class sees them: every text fits its box on screen and on the PDF page,
 *  one number format per slide, the softmax written out in full, concat and W_O for several heads. */

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "core/text/tokenizer.h"
#include "ui/export/reportwriter.h"
#include "ui/i18n/language.h"
#include "ui/render/slidepainter.h"
#include "ui/views/teaching/teachingslides.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <map>
#include <optional>

namespace {

core::AttentionModel presetModel(const char* name)
{
    return core::preset(name)->model;
}

/** Eight tokens of the default embeddings and weights, as --tokens gives them. */
core::AttentionModel eightTokens()
{
    return core::modelForTokens(core::tokenize("the quick brown fox jumps over the dog"));
}

/** Tokens as long as labels get: "Attention" was once cut to "Attentio". */
core::AttentionModel longTokens()
{
    return core::modelForTokens(core::tokenize("internationalization considerations notwithstanding"));
}

/** A model session's shown layer as its slides see it: 14 tokens, d_model 96, one head of d_k = d_v = 16,
 *  a causal mask and weights like a checkpoint's, small numbers of four decimals. */
core::AttentionModel checkpointLike()
{
    core::AttentionModel model =
        core::modelForTokens(core::tokenize("The teacher said that the cat sat on the mat because it was very tired"));
    std::uint64_t state = 12345;
    const auto fill = [&](core::Matrix& m, int rows, int cols) {
        m.resize(rows, cols);
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            m.data()[i] = (double(state >> 11) / double(1ULL << 53) - 0.5) * 0.6;
        }
    };
    fill(model.embeddings, model.n(), 96);
    fill(model.wq, 96, 16);
    fill(model.wk, 96, 16);
    fill(model.wv, 96, 16);
    model.options.mask = core::Mask::Causal;
    return model;
}

core::AttentionModel sourceModel(const QString& source)
{
    if (source == QLatin1String("checkpoint-like"))
        return checkpointLike();
    if (source == QLatin1String("eight"))
        return eightTokens();
    if (source == QLatin1String("long"))
        return longTokens();
    if (source.startsWith(QLatin1String("weight "))) {  // the worked example with W_Q(1,1) set to a large value
        core::AttentionModel model = presetModel("illustrated");
        model.wq(0, 0) = source.mid(7).toDouble();
        return model;
    }
    return presetModel(source.toUtf8().constData());
}

/** Paints slide into an image of size and returns what it drew; scale, when given, is set to what the
 *  matrices were scaled by to fit. */
std::vector<render::DrawnText> paintSlide(const render::Slide& slide, QSize size, int page, int pages,
                                          double* scale = nullptr)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    render::SlidePainter painter(slide, QFont(), render::SlideColors());
    painter.setPage(page, pages);
    painter.paint(p, QRectF(QPointF(0, 0), QSizeF(size)));
    if (scale)
        *scale = painter.matrixScale();
    return painter.drawn();
}

/** What is wrong with a slide's layout in area: a text cut by its box, out of the area, or over another. */
QStringList layoutFaults(const std::vector<render::DrawnText>& drawn, const QRectF& area)
{
    QStringList faults;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const render::DrawnText& t = drawn[i];
        if (!t.fits)
            faults << QStringLiteral("\"%1\" is cut by its box").arg(t.text);
        if (t.box.left() < area.left() - 0.5 || t.box.top() < area.top() - 0.5 || t.box.right() > area.right() + 0.5 ||
            t.box.bottom() > area.bottom() + 0.5)
            faults << QStringLiteral("\"%1\" lies outside the slide").arg(t.text);
        for (std::size_t j = 0; j < i; ++j) {
            const QRectF both = t.box.intersected(drawn[j].box);
            if (both.width() > 0.5 && both.height() > 0.5)
                faults << QStringLiteral("\"%1\" overlaps \"%2\"").arg(t.text, drawn[j].text);
        }
    }
    return faults;
}

/** Every slide of every head, walking the first and the last query. */
std::vector<render::Slide> everySlide(const core::Trace& trace)
{
    std::vector<render::Slide> all;
    for (int head = 0; head < trace.headCount(); ++head)
        for (int query : {0, trace.n() - 1}) {
            const auto slides = ui::buildSlides(trace, head, query);
            all.insert(all.end(), slides.begin(), slides.end());
        }
    return all;
}

} // namespace

class TestSlides : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { ui::i18n::applyLanguage(QStringLiteral("en")); }

    void everyTextFitsItsBox_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        // 960 × 540 is the PDF deck's page in pixels.
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080), QSize(960, 540)})
                for (const QString& source :
                     {QStringLiteral("illustrated"), QStringLiteral("eight"), QStringLiteral("multi-head"),
                      QStringLiteral("causal-sentence"), QStringLiteral("long"), QStringLiteral("weight 1e300")})
                    QTest::addRow("%s %dx%d %s", qPrintable(source), size.width(), size.height(), qPrintable(language))
                        << source << size << language;
    }

    void everyTextFitsItsBox()
    {
        QFETCH(QString, source);
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        const core::AttentionModel model = sourceModel(source);
        const auto slides = everySlide(core::compute(model));
        QVERIFY(!slides.empty());
        for (std::size_t i = 0; i < slides.size(); ++i) {
            const auto drawn = paintSlide(slides[i], size, int(i) + 1, int(slides.size()));
            QVERIFY(drawn.size() > 3);
            for (const render::DrawnText& t : drawn)
                QVERIFY2(t.fits, qPrintable(QStringLiteral("slide \"%1\": \"%2\" does not fit %3 × %4")
                                                .arg(slides[i].title, t.text)
                                                .arg(t.box.width())
                                                .arg(t.box.height())));
        }
    }

    /** The matrices of a slide are drawn at a size a class can read from the back: at 1280 × 720 their
     *  numbers are never shrunk below 45 % of their size, some 10 px (concat · W_O = output of two heads
     *  was once at 35 %, Q, K and V of d_k 16 at 36 %). */
    void matricesAreReadable_data()
    {
        QTest::addColumn<QString>("source");
        for (const char* source : {"illustrated", "eight", "multi-head", "causal-sentence", "long"})
            QTest::newRow(source) << QString::fromLatin1(source);
        // Queries and scores of 7e+14 and 4.9e+299: scientific, as narrow as the others, not 15 or 300 digits.
        QTest::newRow("a weight of 1e15") << QStringLiteral("weight 1e15");
        QTest::newRow("a weight of 1e300") << QStringLiteral("weight 1e300");
    }

    void matricesAreReadable()
    {
        QFETCH(QString, source);
        const auto slides = everySlide(core::compute(sourceModel(source)));
        QStringList small;
        for (const render::Slide& slide : slides) {
            double scale = 0;
            paintSlide(slide, QSize(1280, 720), 1, 1, &scale);
            if (scale < 0.45)
                small << QStringLiteral("slide \"%1\": matrices at %2 %").arg(slide.title).arg(int(scale * 100));
        }
        small.removeDuplicates();
        QVERIFY2(small.isEmpty(), qPrintable(small.join(QLatin1Char('\n'))));
    }

    void slideNumbers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::addRow("trailing zeros") << 0.5 << QStringLiteral("0.5");
        QTest::addRow("negative") << -0.46831 << QStringLiteral("−0.4683");
        QTest::addRow("tiny stays fixed") << 6.03e-6 << QStringLiteral("0");
        QTest::addRow("widest fixed") << -999999.5 << QStringLiteral("−999999.5");
        // From 10⁶ on scientific, its mantissa trimmed: never the exponent's own zeros ("1e+3" for 1e300).
        QTest::addRow("a million") << 1234567.5 << QStringLiteral("1.2346e+06");
        QTest::addRow("1e15") << 7e14 << QStringLiteral("7e+14");
        QTest::addRow("1e300") << -1e300 << QStringLiteral("−1e+300");
    }

    void slideNumbers()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(render::slideNumber(value, 4), text);
    }

    /** Ctrl + at a projector: at every zoom step every slide of every preset fits, no text over another
     *  nor out of the slide, and no part of a slide (its matrices above all) drawn smaller than a step
     *  before. Where the wished zoom cannot fit, the slide stays at the largest step that does. */
    void zoomedSlidesFit_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        // Sizes follow the slide, so a second screen size is tried for the densest preset alone.
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)})
                for (const core::PresetInfo& preset : core::presetList())
                    if (size.width() == 1280 || (preset.name == "multi-head" && language == QLatin1String("en")))
                        QTest::addRow("%s %dx%d %s", preset.name.c_str(), size.width(), size.height(),
                                      qPrintable(language))
                            << QString::fromStdString(preset.name) << size << language;
    }

    void zoomedSlidesFit()
    {
        QFETCH(QString, source);
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        const core::Trace trace = core::compute(sourceModel(source));
        // Every slide of every head walking the last query.
        std::vector<render::Slide> slides;
        for (int head = 0; head < trace.headCount(); ++head) {
            const auto more = ui::buildSlides(trace, head, trace.n() - 1);
            slides.insert(slides.end(), more.begin(), more.end());
        }
        // The steps Ctrl − and Ctrl + take from 1, both ways, as far as the view lets them.
        std::vector<double> zooms{1.0};
        for (double z = 1.0; z / render::SlidePainter::zoomStep >= 0.5;)
            zooms.insert(zooms.begin(), z /= render::SlidePainter::zoomStep);
        for (double z = 1.0; z * render::SlidePainter::zoomStep <= 3.0;)
            zooms.push_back(z *= render::SlidePainter::zoomStep);
        const QRectF area(QPointF(0, 0), QSizeF(size));
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        QStringList faults;
        for (std::size_t i = 0; i < slides.size(); ++i) {
            std::map<render::SlidePart, double> before;  // the smallest text of each part a step before
            for (const double zoom : zooms) {
                QPainter p(&image);
                render::SlidePainter painter(slides[i], QFont(), render::SlideColors());
                painter.setPage(int(i) + 1, int(slides.size()));
                painter.setZoom(zoom);
                painter.paint(p, area);
                const QString where = QStringLiteral("slide %1 \"%2\" at zoom %3: ").arg(i + 1).arg(slides[i].title).arg(zoom);
                for (const QString& fault : layoutFaults(painter.drawn(), area))
                    faults << where + fault;
                std::map<render::SlidePart, double> smallest;
                for (const render::DrawnText& t : painter.drawn())
                    if (t.part != render::SlidePart::Note)
                        smallest[t.part] = smallest.count(t.part) ? std::min(smallest[t.part], t.size) : t.size;
                for (const auto& [part, px] : smallest)
                    if (before.count(part) && px < before.at(part) - 0.01)
                        faults << where + QStringLiteral("part %1 shrank from %2 px to %3 px")
                                              .arg(int(part))
                                              .arg(before.at(part))
                                              .arg(px);
                before = smallest;
                QVERIFY(painter.shownZoom() <= zoom);
                if (zoom <= 1.0)
                    QCOMPARE(painter.shownZoom(), zoom);
                // Past the largest zoom that fits the slide says so, and the view zooms in no further.
                const bool says = std::any_of(painter.drawn().begin(), painter.drawn().end(),
                                              [](const render::DrawnText& t) { return t.part == render::SlidePart::Note; });
                QCOMPARE(says, painter.shownZoom() < zoom);
                if (says)
                    break;
            }
        }
        faults.removeDuplicates();
        QVERIFY2(faults.isEmpty(), qPrintable(faults.mid(0, 12).join(QLatin1Char('\n'))));
    }

    /** One Ctrl + on a projector's 1280 × 720 enlarges every slide, the dense ones of a checkpoint too (they
     *  once said "the largest size" at once): the matrices by some 10 % or more, showing fewer rows and columns
     *  behind their "…" and "⋮"; arithmetic lines that no longer fit are counted in a line of their own. */
    void ctrlPlusEnlargesEverySlide_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("language");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const char* source : {"checkpoint-like", "causal-sentence", "chinese", "multi-head", "thinking-machines"})
                QTest::addRow("%s %s", source, qPrintable(language)) << QString::fromLatin1(source) << language;
    }

    void ctrlPlusEnlargesEverySlide()
    {
        QFETCH(QString, source);
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        const auto slides = ui::buildSlides(core::compute(sourceModel(source)), 0, 0);
        const QRectF area(0, 0, 1280, 720);
        QImage image(area.size().toSize(), QImage::Format_ARGB32_Premultiplied);
        const auto smallestMatrixText = [](const std::vector<render::DrawnText>& drawn) {
            double px = 0;
            for (const render::DrawnText& t : drawn)
                if (t.part == render::SlidePart::Matrices)
                    px = px > 0 ? std::min(px, t.size) : t.size;
            return px;
        };
        QStringList faults;
        for (std::size_t i = 0; i < slides.size(); ++i) {
            const render::Slide& slide = slides[i];
            QPainter p(&image);
            render::SlidePainter atOne(slide, QFont(), render::SlideColors());
            atOne.paint(p, area);
            render::SlidePainter zoomed(slide, QFont(), render::SlideColors());
            zoomed.setZoom(render::SlidePainter::zoomStep);
            zoomed.paint(p, area);
            const QString where = QStringLiteral("slide %1 \"%2\": ").arg(i + 1).arg(slide.title);
            if (zoomed.shownZoom() < render::SlidePainter::zoomStep) {
                faults << where + QStringLiteral("Ctrl + showed zoom %1").arg(zoomed.shownZoom());
                continue;
            }
            for (const QString& fault : layoutFaults(zoomed.drawn(), area))
                faults << where + fault;
            const double before = smallestMatrixText(atOne.drawn()), after = smallestMatrixText(zoomed.drawn());
            if (before > 0 && after < before * 1.1)
                faults << where + QStringLiteral("matrices from %1 px to %2 px").arg(before).arg(after);
            // The last line of arithmetic drawn, or the line that counts those left out.
            if (!slide.arithmetic.isEmpty()) {
                const QString last = slide.arithmetic.constLast().left(12);
                const bool shown = std::any_of(zoomed.drawn().begin(), zoomed.drawn().end(), [&](const render::DrawnText& t) {
                    return t.part == render::SlidePart::Arithmetic &&
                           (t.text.startsWith(last) || t.text.contains(QStringLiteral("Ctrl −")));
                });
                if (!shown)
                    faults << where + QStringLiteral("arithmetic left out without a word");
            }
        }
        QVERIFY2(faults.isEmpty(), qPrintable(faults.mid(0, 12).join(QLatin1Char('\n'))));
    }

    void oneNumberFormatPerSlide_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addRow("worked example") << QStringLiteral("illustrated");
        QTest::addRow("eight tokens") << QStringLiteral("eight");
        // d_model 512: weights as small as 1e-6 stand next to 0.06.
        QTest::addRow("thinking machines") << QStringLiteral("thinking-machines");
        QTest::addRow("multi-head") << QStringLiteral("multi-head");
    }

    void oneNumberFormatPerSlide()
    {
        QFETCH(QString, source);
        const core::AttentionModel model = sourceModel(source);
        static const QRegularExpression exponent(QStringLiteral("\\d[eE][-+−]?\\d"));
        static const QRegularExpression decimals(QStringLiteral("\\d\\.(\\d+)"));
        for (const render::Slide& slide : everySlide(core::compute(model))) {
            QStringList texts = slide.arithmetic;
            for (const render::DrawnText& t : paintSlide(slide, QSize(1280, 720), 0, 0))
                texts << t.text;
            for (const QString& text : texts) {
                QVERIFY2(!exponent.match(text).hasMatch(),
                         qPrintable(QStringLiteral("\"%1\" on \"%2\"").arg(text, slide.title)));
                for (auto it = decimals.globalMatch(text); it.hasNext();) {
                    const QString digits = it.next().captured(1);
                    QVERIFY2(digits.size() <= slide.decimals,
                             qPrintable(QStringLiteral("\"%1\" on \"%2\"").arg(text, slide.title)));
                }
            }
        }
    }

    void softmaxIsWrittenOutInFull()
    {
        const core::Trace trace = core::compute(presetModel("illustrated"));
        const auto slides = ui::buildSlides(trace, 0, 0);
        const render::Slide& softmax = slides[4];
        QCOMPARE(softmax.step, 5);
        // SPEC §4: row 1 of the scores is 2 4 4; the weights are 0.0634, 0.4683, 0.4683.
        QVERIFY(softmax.arithmetic.contains(QStringLiteral("max = 4")));
        QVERIFY(softmax.arithmetic.contains(QStringLiteral("Σ = Σₖ exp(s(1,k) − max) = 0.1353 + 1 + 1 = 2.1353")));
        QVERIFY(softmax.arithmetic.contains(QStringLiteral("w(1,1) = exp(2 − 4) / Σ = 0.1353 / 2.1353 = 0.0634")));
        QVERIFY(softmax.arithmetic.contains(QStringLiteral("w(1,2) = exp(4 − 4) / Σ = 1 / 2.1353 = 0.4683")));
        // Every line is drawn whole on the slide.
        const auto drawn = paintSlide(softmax, QSize(1280, 720), 5, 8);
        for (const QString& line : softmax.arithmetic) {
            const bool whole = std::any_of(drawn.begin(), drawn.end(),
                                           [&](const render::DrawnText& t) { return t.text == line && t.fits; });
            QVERIFY2(whole, qPrintable(line));
        }
    }

    void longLinesBreakAfterAnOperator()
    {
        render::Slide slide;
        slide.title = QStringLiteral("Σ");
        slide.arithmetic << QStringLiteral("Σ = ") +
                                QStringList(60, QStringLiteral("0.1234")).join(QStringLiteral(" + ")) +
                                QStringLiteral(" = 7.404");
        const auto drawn = paintSlide(slide, QSize(1280, 720), 0, 0);
        QStringList rows;
        for (const render::DrawnText& t : drawn) {
            QVERIFY2(t.fits, qPrintable(t.text));
            if (t.text != slide.title && !t.text.isEmpty()) {
                // The rows that carry a line on are indented, the middle ones too.
                QVERIFY2(t.text.startsWith(QStringLiteral("    ")) == !rows.isEmpty(), qPrintable(t.text));
                rows << t.text.trimmed();
            }
        }
        QVERIFY(rows.size() > 2);
        QCOMPARE(rows.join(QLatin1Char(' ')), slide.arithmetic.constFirst());
        for (qsizetype r = 0; r + 1 < rows.size(); ++r)
            QVERIFY2(rows[r].endsWith(QLatin1Char('+')) || rows[r].endsWith(QLatin1Char('=')), qPrintable(rows[r]));
    }

    void severalHeadsEndWithConcatAndWo()
    {
        const core::Trace trace = core::compute(presetModel("multi-head"));
        QCOMPARE(trace.headCount(), 2);
        for (int head = 0; head < 2; ++head) {
            const auto slides = ui::buildSlides(trace, head, 1);
            QCOMPARE(int(slides.size()), 11);
            QVERIFY(slides[2].title.contains(QStringLiteral("head %1").arg(head + 1)));

            const render::Slide& concat = slides[8];
            QCOMPARE(int(concat.matrices.size()), 3);
            QCOMPARE(concat.matrices[0].name, QStringLiteral("Z₁"));
            QCOMPARE(concat.matrices[1].name, QStringLiteral("Z₂"));
            QCOMPARE(concat.matrices[0].values, trace.heads[0].outputs);
            QCOMPARE(concat.matrices[1].values, trace.heads[1].outputs);
            QCOMPARE(concat.matrices[2].values, trace.concat);

            // concat · W_O, then the output on a slide of its own: 8 + 8 + 8 columns are too many for one.
            const render::Slide& wo = slides[9];
            QCOMPARE(int(wo.matrices.size()), 2);
            QCOMPARE(wo.matrices[1].name, QStringLiteral("W_O"));
            QCOMPARE(wo.matrices[1].values, *trace.model->wo);
            QCOMPARE(wo.matrices[1].rowLabels.first(), QStringLiteral("h1·1"));
            const render::Slide& output = slides[10];
            QCOMPARE(int(output.matrices.size()), 1);
            QCOMPARE(output.matrices[0].values, trace.output);
            QCOMPARE(output.matrices[0].highlightRow, 1);
            QVERIFY(wo.arithmetic.value(0).startsWith(QStringLiteral("out(2,1) = concat₂·W_O[:,1] = ")));
        }
        // One head without W_O: nothing after "every token at once".
        QCOMPARE(int(ui::buildSlides(core::compute(presetModel("illustrated")), 0, 0).size()), 8);
    }

    /** Z₁ Z₂ → concat on two rows: the arrow once stood at the start of the second row, beside
     *  concat's row labels, pointing from nothing. It stands between what it joins. */
    void anArrowPointsFromTheMatricesBeforeIt_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("language");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")})
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080), QSize(960, 540), QSize(1024, 768)})
                QTest::addRow("%dx%d %s", size.width(), size.height(), qPrintable(language)) << size << language;
    }

    void anArrowPointsFromTheMatricesBeforeIt()
    {
        QFETCH(QSize, size);
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        const auto slides = ui::buildSlides(core::compute(presetModel("multi-head")), 0, 0);
        const render::Slide& concat = slides[8];
        QCOMPARE(concat.operators.last(), QStringLiteral("→"));
        std::vector<render::DrawnText> before, after;
        std::optional<render::DrawnText> arrow;
        for (const render::DrawnText& t : paintSlide(concat, size, 9, 11)) {
            if (t.part != render::SlidePart::Matrices)
                continue;
            if (t.text.contains(QStringLiteral("→")) || t.text.contains(QStringLiteral("↓")))
                arrow = t;
            else
                (arrow ? after : before).push_back(t);
        }
        QVERIFY(arrow && !before.empty() && !after.empty());
        auto all = [](const std::vector<render::DrawnText>& texts, auto where) {
            return std::all_of(texts.begin(), texts.end(), where);
        };
        const QRectF a = arrow->box;
        const bool across = all(before, [&](const render::DrawnText& t) { return t.box.right() <= a.left() + 0.5; }) &&
                            all(after, [&](const render::DrawnText& t) { return t.box.left() >= a.right() - 0.5; });
        const bool down = all(before, [&](const render::DrawnText& t) { return t.box.bottom() <= a.top() + 0.5; }) &&
                          all(after, [&](const render::DrawnText& t) { return t.box.top() >= a.bottom() - 0.5; });
        QVERIFY2(across || down, qPrintable(QStringLiteral("\"%1\" at %2, %3").arg(arrow->text).arg(a.left()).arg(a.top())));
        QCOMPARE(arrow->text, down ? QStringLiteral("↓") : QStringLiteral("→"));
    }

    /** The concatenation and W_O end step 7 as the steps panel shows them: the slides and the report
     *  number them alike (the report once called them step 8). */
    void projectionIsPartOfStepSeven()
    {
        const core::Trace trace = core::compute(presetModel("multi-head"));
        const auto slides = ui::buildSlides(trace, 0, 0);
        QCOMPARE(slides[8].step, 7);
        QVERIFY(slides[8].title.startsWith(QStringLiteral("Step 7 · ")));
        const QStringList report = exports::reportStepTitles(trace);
        QCOMPARE(report.size(), 8);
        // Its slides carry the report's heading, told apart: three slides in a row once read "Step 7" alike.
        QCOMPARE(slides[8].title, report.last() + QStringLiteral(" (1/3)"));
        QCOMPARE(slides[9].title, report.last() + QStringLiteral(" (2/3)"));
        QCOMPARE(slides[10].title, report.last() + QStringLiteral(" (3/3)"));
    }

    /** What a slide leaves out it says: six heads side by side show four, then "…" and a note naming the rest. */
    void concatOfManyHeadsSaysWhatItLeavesOut()
    {
        core::AttentionModel model = eightTokens();
        const int dModel = model.dModel();
        model.options.heads = 6;
        model.wq = core::Matrix::Constant(dModel, 12, 0.1);
        model.wk = core::Matrix::Constant(dModel, 12, 0.2);
        model.wv = core::Matrix::Constant(dModel, 12, 0.3);
        const core::Trace trace = core::compute(model);
        QCOMPARE(trace.headCount(), 6);
        const auto slides = ui::buildSlides(trace, 0, 0);
        const auto concat = std::find_if(slides.begin(), slides.end(), [](const render::Slide& s) {
            return !s.matrices.empty() && s.matrices.front().name == QStringLiteral("Z₁");
        });
        QVERIFY(concat != slides.end());
        QCOMPARE(int(concat->matrices.size()), 5);  // Z₁ … Z₄ and concat
        QCOMPARE(concat->operators.last(), QStringLiteral("… →"));
        QVERIFY2(concat->explanation.contains(QStringLiteral("Z₅ … Z₆")), qPrintable(concat->explanation));
        QCOMPARE(concat->matrices.back().values, trace.concat);
    }

    /** The weighted values are summed row by row into z: every row is drawn (up to the painter's ten), never cut
     *  to the height of z's one row beside them. The Chinese preset once drew one row, then "⋮". */
    void summedRowsAreNeverCut_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("chinese") << QStringLiteral("chinese");
        QTest::newRow("eight") << QStringLiteral("eight");
        QTest::newRow("thinking-machines") << QStringLiteral("thinking-machines");
    }

    void summedRowsAreNeverCut()
    {
        QFETCH(QString, source);
        const core::Trace trace = core::compute(sourceModel(source));
        const auto slides = ui::buildSlides(trace, 0, trace.n() - 1);
        const render::Slide& sum = slides[6];
        QCOMPARE(sum.matrices.size(), std::size_t(2));
        const int rows = int(std::min<Eigen::Index>(sum.matrices[0].values.rows(), 10));
        for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
            int rowLabels = 0;
            for (const render::DrawnText& t : paintSlide(sum, size, 7, 8))
                if (t.part == render::SlidePart::Matrices && sum.matrices[0].rowLabels.contains(t.text))
                    ++rowLabels;
            // The weighted values' labels, and z's one (its query's token, among them).
            QVERIFY2(rowLabels >= rows, qPrintable(QStringLiteral("%1 of %2 rows at %3 × %4")
                                                       .arg(rowLabels)
                                                       .arg(rows)
                                                       .arg(size.width())
                                                       .arg(size.height())));
        }
    }

    void deckHasOnePagePerSlide()
    {
        const core::Trace trace = core::compute(presetModel("multi-head"));
        const auto slides = ui::buildSlides(trace, 0, 0);
        QByteArray bytes;
        QBuffer buffer(&bytes);
        QVERIFY(buffer.open(QIODevice::WriteOnly));
        QString error;
        QVERIFY2(render::writeSlideDeck(slides, QStringLiteral("deck"), &buffer, &error), qPrintable(error));
        QVERIFY(bytes.startsWith("%PDF-"));
        QCOMPARE(int(QString::fromLatin1(bytes).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)")))),
                 int(slides.size()));
        QVERIFY(!render::writeSlideDeck({}, QString(), &buffer, &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_MAIN(TestSlides)
#include "tst_slides.moc"
