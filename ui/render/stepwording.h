#pragma once
/** The wording of the seven steps of self-attention, in one place: the steps panel, the walkthrough,
 *  the teaching slides and the PDF report all say what a step is called and how it is written from
 *  here, so they agree and are translated once (translation context "StepWording"). */

#include "core/attention/model.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace render {

/** What one step says for one model, in the current language. */
struct StepText {
    int number = 0;       ///< 1 … 7, in the order of the maths
    QString title;        ///< short, e.g. "Scores"
    QString formula;      ///< rich text with real subscripts (<i>, <sub>, &nbsp;)
    QString shape;        ///< the symbolic shape of its matrix, e.g. "n × n"
    QString explanation;  ///< one or two sentences in plain words (slides)
    QString details;      ///< a paragraph in plain words (the report)
    QString note;         ///< what this model does differently here (the causal mask), or empty

    /** The formula as plain text, for painters that cannot draw rich text (see plainFormula()). */
    QString plainFormula() const;
};

class StepWording {
    Q_DECLARE_TR_FUNCTIONS(StepWording)
public:
    /** How many steps there are (seven). */
    static constexpr int count = 7;

    /** The wording of step number (1 … 7) for model; an empty StepText for another number. */
    static StepText step(int number, const core::AttentionModel& model);
    /** "3 · Scores": the short numbered title the panel and the walkthrough show. */
    static QString numberedTitle(int number, const core::AttentionModel& model);
    /** "Step 3 · Scores": the heading of a slide or a report page. */
    static QString heading(int number, const QString& title);

    /** Whether the model concatenates heads or projects with W_O after step 7. */
    static bool hasProjection(const core::AttentionModel& model);
    /** The title of concatenating the heads and projecting (part of step 7). */
    static QString projectionTitle();
    /** Its formula alone (rich text), empty when hasProjection() is false. */
    static QString projectionFormula(const core::AttentionModel& model);
    /** Its paragraph in plain words. */
    static QString projectionDetails(const core::AttentionModel& model);

    /** The whole computation in one formula (rich text), e.g. Z = softmax(Q·Kᵀ ÷ √d_k)·V. */
    static QString overallFormula(const core::AttentionModel& model);
    /** How positions enter, as a short fact: "rotary positions (θ = 10000, 8 of 8 dimensions turned)",
     *  "sinusoidal positional encoding" or "no positional encoding" (the report's and handout's options). */
    static QString positionsFact(const core::AttentionModel& model);
    /** The options of SPEC §6 beside the positions, one short fact each: shared K/V heads, q/k norm. */
    static QStringList headOptionFacts(const core::AttentionModel& model);
    /** With shared K/V heads, the K/V head query head `head` (0-based) reads and the query heads sharing it:
     *  "K/V head 2 · query heads 3–4"; empty when every head has its own. */
    static QString kvHeadLabel(const core::AttentionModel& model, int head);
    /** "query 2 “cat”", the name of one query (0-based index) of the slides and the panel. */
    static QString queryName(int query, const QString& token);
};

/** Rich text of a formula as plain text: subscripts become Unicode subscripts where every character
 *  has one (<sub>ij</sub> → ᵢⱼ) and "_" followed by the text otherwise (<sub>Q</sub> → _Q),
 *  superscripts likewise (ᵀ, ²), other tags are dropped and entities (&nbsp;, &lt;, …) resolved. */
QString plainFormula(const QString& rich);

}  // namespace render
