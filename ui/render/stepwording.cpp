#include "stepwording.h"

#include "core/attention/derivation.h"

#include <QHash>
#include <QRegularExpression>

namespace render {

namespace {

QString number(double v)
{
    return QString::fromStdString(core::formatNumber(v));
}

/** Every character of text in its Unicode sub- or superscript form, or empty when one has none. */
QString shifted(const QString& text, bool sub)
{
    static const QHash<QChar, QChar> subscripts = [] {
        QHash<QChar, QChar> map;
        const QString from = QStringLiteral("0123456789aehijklmnoprstuvx+−=()");
        const QString to = QStringLiteral("₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₊₋₌₍₎");
        for (qsizetype i = 0; i < from.size(); ++i)
            map.insert(from[i], to[i]);
        return map;
    }();
    static const QHash<QChar, QChar> superscripts = [] {
        QHash<QChar, QChar> map;
        const QString from = QStringLiteral("0123456789inT+−=()");
        const QString to = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹ⁱⁿᵀ⁺⁻⁼⁽⁾");
        for (qsizetype i = 0; i < from.size(); ++i)
            map.insert(from[i], to[i]);
        return map;
    }();
    const QHash<QChar, QChar>& map = sub ? subscripts : superscripts;
    QString out;
    for (const QChar c : text) {
        const auto it = map.find(c);
        if (it == map.end())
            return {};
        out += *it;
    }
    return out;
}

/** " + b_Q" (rich text) when the bias is there, else nothing: a formula's bias term. */
QString biasTerm(const std::optional<core::Matrix>& bias, const QString& letter)
{
    return bias ? QStringLiteral(" + <i>b</i><sub>%1</sub>").arg(letter) : QString();
}

/** rich with the spaces around its operators (=, +, −, ÷, ·, ←) made non-breaking: a narrow panel then wraps a
 *  formula between its equations and words, never inside one ("V = / X·W_V + b_V"). */
QString unbrokenOperators(QString rich)
{
    for (const QChar op : {QChar(u'='), QChar(u'+'), QChar(u'−'), QChar(u'÷'), QChar(u'·'), QChar(u'←')})
        rich.replace(QStringLiteral(" %1 ").arg(op), QStringLiteral("&nbsp;%1&nbsp;").arg(op));
    return rich;
}

}  // namespace

QString plainFormula(const QString& rich)
{
    static const QRegularExpression script(QStringLiteral("<(sub|sup)>(.*?)</\\1>"));
    static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
    QString text;
    qsizetype from = 0;
    for (auto it = script.globalMatch(rich); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        text += rich.mid(from, m.capturedStart() - from);
        const bool sub = m.captured(1) == QLatin1String("sub");
        const QString inner = QString(m.captured(2)).remove(tag);
        const QString unicode = shifted(inner, sub);
        text += !unicode.isEmpty() ? unicode : (sub ? QStringLiteral("_") : QStringLiteral("^")) + inner;
        from = m.capturedEnd();
    }
    text += rich.mid(from);
    text.remove(tag);
    text.replace(QLatin1String("&nbsp;"), QLatin1String(" "))
        .replace(QLatin1String("&lt;"), QLatin1String("<"))
        .replace(QLatin1String("&gt;"), QLatin1String(">"))
        .replace(QLatin1String("&quot;"), QLatin1String("\""))
        .replace(QLatin1String("&amp;"), QLatin1String("&"));
    return text;
}

QString StepText::plainFormula() const
{
    return render::plainFormula(formula);
}

namespace {

bool rotaryPositions(const core::AttentionModel& model)
{
    return model.options.positionalEncoding == core::PositionalEncoding::Rotary;
}

/** What the layer's norm does to each row, in one sentence after the stream's. */
QString normSentence(const core::AttentionModel::Origin& origin)
{
    return origin.norm == "RMSNorm"
        ? StepWording::tr(" RMSNorm divides each row by its root mean square, then multiplies it by its learnt gain.")
        : StepWording::tr(" LayerNorm gives each row mean 0 and variance 1, then its learnt gain and bias.");
}

QString layer1Details(const core::AttentionModel& model)
{
    const core::AttentionModel::Origin& origin = *model.origin;
    const QString name = QString::fromStdString(origin.model);
    const bool rotary = rotaryPositions(model);
    QString stream;
    if (origin.layer == 1)
        stream = rotary ? StepWording::tr("In layer 1 the residual stream is the token embedding of %1 alone.").arg(name)
                        : StepWording::tr("In layer 1 the residual stream is the token embedding plus the position "
                                          "embedding of %1.")
                              .arg(name);
    else if (origin.layer == 2)  // one layer before it: not "layers 1 to 1"
        stream = StepWording::tr("The residual stream entering layer 2 of %1 is the embeddings plus the output of "
                                 "layer 1.")
                     .arg(name);
    else
        stream = StepWording::tr("The residual stream entering layer %1 of %2 is the embeddings plus the outputs of "
                                 "layers 1 to %3.")
                     .arg(origin.layer)
                     .arg(name)
                     .arg(origin.layer - 1);
    return stream + normSentence(origin)
        + (rotary ? StepWording::tr(" No position is added to X: step 2 turns each query and key by its position "
                                    "(rotary positions).")
                  : QString());
}

/** Step 2's words on the options of SPEC §6: q/k norm, rotary positions, shared K/V heads (empty without them). */
QString headOptionsDetails(const core::AttentionModel& model)
{
    QString s;
    if (model.options.qkNorm)
        s += StepWording::tr(" Each head's q and k rows are then divided by their root mean square and multiplied "
                             "by a learnt gain (q/k norm).");
    if (rotaryPositions(model)) {
        const int dr = core::rotaryWidth(model);
        s += StepWording::tr(" Then each query and key is turned by its position p: the pair of dimensions (i, i + "
                             "%1) by the angle p·θ_i, with θ_i = %2^(−2i/%3); ")
                 .arg(dr / 2)
                 .arg(number(model.options.ropeTheta))
                 .arg(dr)
            + (dr < model.dK() ? StepWording::tr("the last %1 of the %2 dimensions stay as they are. ")
                                     .arg(model.dK() - dr)
                                     .arg(model.dK())
                               : QString())
            + StepWording::tr("Turning both by their positions makes q_i·k_j depend on how far apart the two tokens "
                              "are, not on where they stand.");
    }
    if (model.kvHeads() != model.heads())
        s += StepWording::tr(" The %1 query heads share %2 K/V heads: every %3 query heads read the same keys and "
                             "values.")
                 .arg(model.heads())
                 .arg(model.kvHeads())
                 .arg(model.heads() / model.kvHeads());
    return s;
}

}  // namespace

StepText StepWording::step(int n, const core::AttentionModel& model)
{
    const bool pe = model.options.positionalEncoding == core::PositionalEncoding::Sinusoidal;
    const bool causal = model.options.mask == core::Mask::Causal;
    const bool scale = model.options.scale;
    const double temperature = model.options.temperature;
    const bool hasBias = model.bq || model.bk || model.bv;
    StepText s;
    s.number = n;
    switch (n) {
    case 1:
        s.title = tr("Tokens → X");
        s.formula = pe ? tr("<i>X</i> = embedding(tokens) + PE &nbsp;&nbsp; one row per token")
                       : tr("<i>X</i> = embedding(tokens) &nbsp;&nbsp; one row per token");
        s.shape = tr("n × d_model");
        if (model.origin) {
            // A layer of a real model: X is what reaches this layer, normalised (ln_1).
            s.title = tr("Residual stream → X");
            s.formula = tr("<i>X</i> = %1(residual stream entering layer %2)")
                            .arg(QString::fromStdString(model.origin->norm))
                            .arg(model.origin->layer);
            s.explanation = rotaryPositions(model)
                ? tr("Each token's row is what the layers before this one made of it (its token embedding plus every "
                     "earlier layer's output), normalised by this layer's %1. Positions enter in step 2, as turns "
                     "of q and k.")
                      .arg(QString::fromStdString(model.origin->norm))
                : tr("Each token's row is what the layers before this one made of it (token and position "
                     "embeddings plus every earlier layer's output), normalised by this layer's %1.")
                      .arg(QString::fromStdString(model.origin->norm));
            s.details = layer1Details(model);
            break;
        }
        s.explanation = tr("Each token is a row of numbers. The model only ever sees these numbers: "
                           "everything that follows is arithmetic on the rows of X.");
        s.details = pe ? tr("Each token becomes a row of numbers, its embedding. A pattern of sines and cosines that "
                            "depends only on the position is added to it, so the same word in two places gets two "
                            "different rows: attention itself does not know the order of the tokens.")
                             + tr(" PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and PE(pos, 2i+1) = cos(pos / "
                                  "10000^(2i/d_model)).")
                       : tr("Each token becomes a row of numbers, its embedding. Everything that follows is arithmetic "
                            "on these rows: one row per token, one column per feature.");
        break;
    case 2:
        s.title = tr("Queries, keys and values");
        s.formula = !hasBias
            ? tr("<i>Q</i> = <i>X</i>·<i>W</i><sub>Q</sub> &nbsp;&nbsp; <i>K</i> = <i>X</i>·<i>W</i><sub>K</sub>"
                 " &nbsp;&nbsp; <i>V</i> = <i>X</i>·<i>W</i><sub>V</sub>")
            : tr("<i>Q</i> = <i>X</i>·<i>W</i><sub>Q</sub>%1 &nbsp;&nbsp; <i>K</i> = <i>X</i>·<i>W</i><sub>K</sub>%2"
                 " &nbsp;&nbsp; <i>V</i> = <i>X</i>·<i>W</i><sub>V</sub>%3")
                  .arg(biasTerm(model.bq, QStringLiteral("Q")), biasTerm(model.bk, QStringLiteral("K")),
                       biasTerm(model.bv, QStringLiteral("V")));
        if (model.options.qkNorm)
            s.formula += tr(" &nbsp;&nbsp; <i>q</i>, <i>k</i> ← RMSNorm(<i>q</i>), RMSNorm(<i>k</i>)");
        if (rotaryPositions(model))
            s.formula += tr(" &nbsp;&nbsp; <i>q</i>′<sub>i</sub> = <i>q</i><sub>i</sub>·cos(<i>p</i>·θ<sub>i</sub>) − "
                            "<i>q</i><sub>i+d/2</sub>·sin(<i>p</i>·θ<sub>i</sub>), and the same for <i>k</i>");
        s.shape = tr("Q, K: n × d_k · V: n × d_v");
        s.explanation = tr("Three weight matrices turn every token into three new rows: a query (what it looks for), "
                           "a key (what it offers to be found by) and a value (what it passes on).")
            + (rotaryPositions(model) ? tr(" Then each query and key is turned by an angle that grows with its "
                                           "position, so a score depends on how far apart two tokens are.")
                                      : QString());
        if (rotaryPositions(model))
            s.note = tr("Rotary positions: q and k are turned by their positions before the scores are taken.");
        s.details = tr("Three weight matrices turn every row of X into three new rows. The query q_i says what token i "
                       "is looking for, the key k_j what token j offers, and the value v_j what token j passes on when "
                       "it is attended to.")
            + (model.heads() > 1
                   ? tr(" With %1 heads, head i uses its own block of d_k columns of W_Q and W_K and d_v columns of W_V.")
                         .arg(model.heads())
                   : QString())
            + (hasBias ? tr(" Each product then gets its bias added, one row b that is the same for every token.")
                       : QString())
            + headOptionsDetails(model);
        break;
    case 3:
        s.title = tr("Scores");
        s.formula = tr("scores = <i>Q</i>·<i>K</i>ᵀ &nbsp;&nbsp; score(<i>i</i>,<i>j</i>) = <i>q</i><sub>i</sub>·<i>k</i><sub>j</sub>");
        s.shape = tr("n × n: rows are queries, columns keys");
        s.explanation = tr("The query of one token is compared with the key of every token by a dot product. "
                           "A large score means: this key matches what the query looks for.");
        s.details = tr("Every query is compared with every key by a dot product: multiply them entry by entry and "
                       "add up. A large score means that token i's query and token j's key point the same way, so "
                       "token i will pay attention to token j.");
        break;
    case 4:
        s.title = tr("Divide by √d_k");
        s.formula = tr("scaled = scores");
        if (scale)
            s.formula += tr(" ÷ √<i>d</i><sub>k</sub> = scores ÷ √%1").arg(model.dK());
        if (temperature != 1.0)
            s.formula += tr(" ÷ <i>T</i> (<i>T</i> = %1)").arg(number(temperature));
        if (!scale && temperature == 1.0)
            s.formula += tr(" (skipped: scaling is off)");
        s.shape = tr("n × n");
        if (scale)
            s.explanation = tr("Dot products of long vectors grow with their length d_k. Dividing by √d_k keeps them "
                               "near 1, so the softmax in the next step does not saturate.");
        else if (temperature == 1.0)
            s.explanation = tr("The worked example skips this step, so the scores go to the softmax as they are. "
                               "Switch scaling on to divide them by √d_k = √%1.")
                                .arg(model.dK());
        else
            s.explanation = tr("Scaling is off, as in the worked example, so the scores are divided by the temperature "
                               "T = %1 alone. Switch scaling on to divide them by √d_k = √%2 as well.")
                                .arg(number(temperature))
                                .arg(model.dK());
        s.details = tr("The dot product of two random vectors with d_k entries grows like √d_k: the longer the "
                       "vectors, the more extreme the scores, and the softmax of extreme scores puts almost all "
                       "weight on one key and has almost no gradient to learn from. Dividing by √d_k keeps the "
                       "scores near unit size whatever d_k is.")
            + (scale                ? QString()
               : temperature == 1.0 ? tr(" This session leaves the scaling off, so the scores pass through unchanged.")
                                    : tr(" This session leaves the scaling off, so only the temperature divides the "
                                         "scores."))
            + (temperature != 1.0 ? tr(" Dividing by the temperature T as well makes the weights softer (T > 1) or "
                                       "sharper (T < 1).")
                                  : QString());
        break;
    case 5:
        s.title = tr("Softmax");
        s.formula = tr("weights = softmax(%1), row by row: <i>w</i><sub>ij</sub> = "
                       "exp(<i>s</i><sub>ij</sub>) ÷ Σ<sub>k</sub> exp(<i>s</i><sub>ik</sub>)")
                        .arg(scale || temperature != 1.0 ? tr("scaled") : tr("scores"));
        s.shape = tr("n × n, every row sums to 1");
        s.explanation = causal
            ? tr("Each row becomes positive weights that add up to 1. Under the causal mask a token may only look "
                 "back: the weights of later tokens are exactly 0.")
            : tr("Each row becomes positive weights that add up to 1: how much attention this token pays to each "
                 "of the others.");
        s.details = tr("The softmax turns each row of scaled scores into weights: positive numbers that add up to 1, "
                       "the larger the score the larger its share. Subtracting the row's maximum first changes "
                       "nothing in the result but keeps exp from overflowing.")
            + (causal ? tr(" Under the causal mask a token may only look at itself and the tokens before it: every weight "
                           "above the diagonal is exactly 0.")
                      : QString());
        if (causal)
            s.note = tr("Causal mask: a query sees only itself and the keys before it; later keys get weight 0.");
        break;
    case 6:
        s.title = tr("Weighted values");
        s.formula = tr("<i>w</i><sub>ij</sub> · <i>v</i><sub>j</sub> for every key <i>j</i>");
        s.shape = tr("n × d_v for each query, one row per key");
        s.explanation = tr("Every value row is multiplied by the weight the query gave its token. Rows with a "
                           "weight near 0 all but vanish.");
        s.details = tr("Each query now takes every value vector v_j and multiplies it by the weight it gave to token "
                       "j. Values of tokens it barely attends to shrink to almost nothing; the ones it attends to "
                       "keep most of their size.");
        break;
    case 7:
        s.title = tr("Sum → Z");
        s.formula = tr("<i>z</i><sub>i</sub> = Σ<sub>j</sub> <i>w</i><sub>ij</sub>·<i>v</i><sub>j</sub> &nbsp;&nbsp; "
                       "<i>Z</i> = weights·<i>V</i>");
        if (model.wo && model.bo)
            s.formula += tr(" &nbsp;&nbsp; output = concat(<i>Z</i>)·<i>W</i><sub>O</sub> + <i>b</i><sub>O</sub>");
        else if (model.wo)
            s.formula += tr(" &nbsp;&nbsp; output = concat(<i>Z</i>)·<i>W</i><sub>O</sub>");
        else if (model.heads() > 1)
            s.formula += tr(" &nbsp;&nbsp; output = concat(<i>Z</i> of every head)");
        s.shape = tr("n × d_v");
        s.explanation = tr("Adding the weighted rows gives one new row for this token: a blend of the values of "
                           "the tokens it attended to.");
        s.details = tr("Adding up the weighted values of each query gives its output row z_i: a blend of the values of "
                       "the tokens it attended to. This is the new representation of token i, informed by the whole "
                       "sequence.");
        break;
    default: return {};
    }
    s.formula = unbrokenOperators(s.formula);
    return s;
}

QString StepWording::numberedTitle(int number, const core::AttentionModel& model)
{
    return tr("%1 · %2").arg(number).arg(step(number, model).title);
}

QString StepWording::heading(int number, const QString& title)
{
    return tr("Step %1 · %2").arg(number).arg(title);
}

bool StepWording::hasProjection(const core::AttentionModel& model)
{
    return model.wo.has_value() || model.heads() > 1;
}

QString StepWording::projectionTitle()
{
    return tr("Concatenate the heads and project");
}

QString StepWording::projectionFormula(const core::AttentionModel& model)
{
    if (model.wo && model.bo)
        return unbrokenOperators(tr("concat = [<i>Z</i><sub>1</sub> … <i>Z</i><sub>h</sub>] &nbsp;&nbsp; output = concat·<i>W</i><sub>O</sub>"
                  " + <i>b</i><sub>O</sub>"));
    if (model.wo)
        return unbrokenOperators(
            tr("concat = [<i>Z</i><sub>1</sub> … <i>Z</i><sub>h</sub>] &nbsp;&nbsp; output = concat·<i>W</i><sub>O</sub>"));
    if (model.heads() > 1)
        return unbrokenOperators(tr("output = concat = [<i>Z</i><sub>1</sub> … <i>Z</i><sub>h</sub>]"));
    return {};
}

QString StepWording::projectionDetails(const core::AttentionModel& model)
{
    return tr("The outputs of the heads are set side by side, one block of columns per head.")
        + (model.wo ? tr(" The output projection W_O then mixes what the heads found into one row per token.") : QString())
        + (model.bo ? tr(" Its bias b_O is added to every row.") : QString());
}

QString StepWording::overallFormula(const core::AttentionModel& model)
{
    QString scaled = tr("<i>Q</i>·<i>K</i>ᵀ");
    if (model.options.scale)
        scaled += tr(" ÷ √<i>d</i><sub>k</sub>");
    if (model.options.temperature != 1.0)
        scaled += tr(" ÷ <i>T</i>");
    return unbrokenOperators(tr("<i>Z</i> = softmax(%1)·<i>V</i>").arg(scaled));
}

QString StepWording::positionsFact(const core::AttentionModel& model)
{
    switch (model.options.positionalEncoding) {
    case core::PositionalEncoding::Sinusoidal: return tr("sinusoidal positional encoding");
    case core::PositionalEncoding::Rotary:
        return tr("rotary positions (θ = %1, %2 of %3 dimensions turned)")
            .arg(number(model.options.ropeTheta))
            .arg(core::rotaryWidth(model))
            .arg(model.dK());
    case core::PositionalEncoding::None: break;
    }
    return tr("no positional encoding");
}

QStringList StepWording::headOptionFacts(const core::AttentionModel& model)
{
    QStringList facts;
    if (model.kvHeads() != model.heads())
        facts << tr("%1 K/V heads shared by %2 query heads").arg(model.kvHeads()).arg(model.heads());
    if (model.options.qkNorm)
        facts << tr("q/k norm");
    return facts;
}

QString StepWording::kvHeadLabel(const core::AttentionModel& model, int head)
{
    if (model.kvHeads() == model.heads() || model.kvHeads() <= 0)
        return {};
    const int group = model.heads() / model.kvHeads();
    const int kv = head / group;
    return group == 1 ? QString()
                      : tr("K/V head %1 · query heads %2–%3").arg(kv + 1).arg(kv * group + 1).arg(kv * group + group);
}

QString StepWording::queryName(int query, const QString& token)
{
    return tr("query %1 “%2”").arg(query + 1).arg(token);
}

}  // namespace render
