#include "commands.h"

#include "document.h"
#include "modelsession.h"

#include <QRect>

#include <algorithm>

#include "core/attention/edit.h"

namespace ui {

namespace {

std::size_t bytesOf(const core::Matrix& m)
{
    return std::size_t(m.size()) * sizeof(double);
}

std::size_t bytesOf(const QString& text)
{
    return std::size_t(text.capacity()) * sizeof(QChar);
}

std::size_t bytesOf(const std::vector<std::string>& tokens)
{
    std::size_t bytes = tokens.capacity() * sizeof(std::string);
    for (const std::string& t : tokens)
        bytes += t.capacity() > sizeof(std::string) ? t.capacity() : 0;  // short strings live inside
    return bytes;
}

class CellEdit final : public Edit {
public:
    CellEdit(MatrixId id, int row, int col, double before, double after)
        : m_id(id), m_row(row), m_col(col), m_before(before), m_after(after)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        double* cell = cellOf(model, m_id, m_row, m_col);  // a weight's bias row too
        Q_ASSERT(cell);
        *cell = forward ? m_after : m_before;
        return forward ? ModelChange::cell(m_id, m_row, m_col, m_before, m_after)
                       : ModelChange::cell(m_id, m_row, m_col, m_after, m_before);
    }
    std::size_t heapBytes() const override { return 0; }
    int mergeId() const override { return SetCellId; }
    bool merge(const Edit& next) override
    {
        const auto* o = dynamic_cast<const CellEdit*>(&next);
        if (!o || o->m_id != m_id || o->m_row != m_row || o->m_col != m_col)
            return false;
        m_after = o->m_after;
        return true;
    }
    bool isNull() const override { return m_after == m_before; }

private:
    MatrixId m_id;
    int m_row, m_col;
    double m_before, m_after;
};

/** A rectangle of one matrix's table (its bias is the row below its last), before and after. */
class BlockEdit final : public Edit {
public:
    BlockEdit(MatrixId id, int row, int col, core::Matrix before, core::Matrix after, bool whole)
        : m_id(id), m_row(row), m_col(col), m_before(std::move(before)), m_after(std::move(after)), m_whole(whole)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        core::Matrix* m = matrixOf(model, m_id);
        Q_ASSERT(m && m_row + m_after.rows() <= tableRows(model, m_id) && m_col + m_after.cols() <= m->cols());
        const core::Matrix& to = forward ? m_after : m_before;
        const Eigen::Index weightRows = std::clamp<Eigen::Index>(m->rows() - m_row, 0, to.rows());
        m->block(m_row, m_col, weightRows, to.cols()) = to.topRows(weightRows);
        if (weightRows < to.rows())  // the rectangle reaches the bias row
            biasOf(model, m_id)->middleCols(m_col, to.cols()) = to.bottomRows(1);
        return m_whole ? ModelChange::wholeMatrix(m_id)
                       : ModelChange::block(m_id, m_row, m_col, int(m_after.rows()), int(m_after.cols()));
    }
    std::size_t heapBytes() const override { return bytesOf(m_before) + bytesOf(m_after); }

private:
    MatrixId m_id;
    int m_row, m_col;
    core::Matrix m_before, m_after;  ///< rows × cols each
    bool m_whole;                    ///< the rectangle is the whole table
};

class OptionsEdit final : public Edit {
public:
    OptionsEdit(const core::Options& before, const core::Options& after) : m_before(before), m_after(after) {}
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        model.options = forward ? m_after : m_before;
        return ModelChange::of(ModelChange::Kind::Options);
    }
    std::size_t heapBytes() const override { return 0; }

private:
    core::Options m_before, m_after;
};

class OutputProjectionEdit final : public Edit {
public:
    /** removed: the W_O taken away, with its bias b_O when it had one (b_O needs W_O, so it goes too);
     *  nothing when W_O of rows × cols is added (without a bias). */
    OutputProjectionEdit(std::optional<core::Matrix> removed, std::optional<core::Matrix> removedBias,
                         Eigen::Index rows, Eigen::Index cols)
        : m_removed(std::move(removed)), m_removedBias(std::move(removedBias)), m_rows(rows), m_cols(cols)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        const bool on = m_removed.has_value() != forward;
        if (!on) {
            model.wo.reset();
            model.bo.reset();
        } else if (m_removed) {
            model.wo = *m_removed;
            model.bo = m_removedBias;
        } else {
            model.wo = core::Matrix::Identity(m_rows, m_cols);
        }
        return ModelChange::of(ModelChange::Kind::Shape);
    }
    std::size_t heapBytes() const override
    {
        return (m_removed ? bytesOf(*m_removed) : 0) + (m_removedBias ? bytesOf(*m_removedBias) : 0);
    }

private:
    std::optional<core::Matrix> m_removed;
    std::optional<core::Matrix> m_removedBias;
    Eigen::Index m_rows, m_cols;  ///< of the W_O added
};

class TokensEdit final : public Edit {
public:
    struct Side {
        std::vector<std::string> tokens;
        core::Matrix embeddings;  ///< n × d_model; empty when the edit keeps tokens and X as they were
        QString text;
    };
    /** keepsModel: the tokens and X are those of before and after; false: only the text changes. */
    TokensEdit(Side before, Side after, bool keepsModel, bool startsBurst)
        : m_before(std::move(before)), m_after(std::move(after)), m_keepsModel(keepsModel), m_startsBurst(startsBurst)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        QString& tokenText = session.tokenText();
        const Side& to = forward ? m_after : m_before;
        if (m_keepsModel) {
            model.tokens = to.tokens;
            model.embeddings = to.embeddings;
        }
        tokenText = to.text;
        return ModelChange::of(ModelChange::Kind::Tokens);
    }
    std::size_t heapBytes() const override
    {
        std::size_t bytes = 0;
        for (const Side* s : {&m_before, &m_after})
            bytes += bytesOf(s->tokens) + bytesOf(s->embeddings) + bytesOf(s->text);
        return bytes;
    }
    int mergeId() const override { return TokenTextId; }
    bool merge(const Edit& next) override
    {
        const auto* o = dynamic_cast<const TokensEdit*>(&next);
        if (!o || o->m_startsBurst)
            return false;
        if (o->m_keepsModel) {
            // When this edit changed the text alone, the tokens and X before it are those before the next.
            if (!m_keepsModel)
                m_before = {o->m_before.tokens, o->m_before.embeddings, m_before.text};
            m_after = o->m_after;
            m_keepsModel = true;
        } else {
            m_after.text = o->m_after.text;
        }
        // Back at the tokens and X of the start (a user's row lost on the way would differ): the text alone.
        if (m_keepsModel && m_before.tokens == m_after.tokens && m_before.embeddings == m_after.embeddings) {
            m_before.embeddings = m_after.embeddings = core::Matrix();
            m_keepsModel = false;
        }
        return true;
    }
    bool isNull() const override { return !m_keepsModel && m_before.text == m_after.text; }

private:
    Side m_before, m_after;
    bool m_keepsModel;
    bool m_startsBurst;  ///< typing paused (or the line was left) before this edit: it is a step of its own
};

class ShapeEdit final : public Edit {
public:
    struct Side {
        core::Matrix embeddings, wq, wk, wv;
        std::optional<core::Matrix> wo;
        std::optional<core::Matrix> bq, bk, bv, bo;  ///< the biases follow their weights' shapes
        std::optional<core::Matrix> qNorm, kNorm;    ///< the q/k norm weights follow d_k
        int heads = 1;
        int kvHeads = 0;                             ///< a resize of the heads resets it
    };
    ShapeEdit(Side before, Side after) : m_before(std::move(before)), m_after(std::move(after)) {}
    EditResult apply(Session& session, bool forward) override
    {
        core::AttentionModel& model = session.model();
        const Side& to = forward ? m_after : m_before;
        model.embeddings = to.embeddings;
        model.wq = to.wq;
        model.wk = to.wk;
        model.wv = to.wv;
        model.wo = to.wo;
        model.bq = to.bq;
        model.bk = to.bk;
        model.bv = to.bv;
        model.bo = to.bo;
        model.qNorm = to.qNorm;
        model.kNorm = to.kNorm;
        model.options.heads = to.heads;
        model.options.kvHeads = to.kvHeads;
        return ModelChange::of(ModelChange::Kind::Shape);
    }
    std::size_t heapBytes() const override
    {
        std::size_t bytes = 0;
        for (const Side* s : {&m_before, &m_after}) {
            for (const core::Matrix* m : {&s->embeddings, &s->wq, &s->wk, &s->wv})
                bytes += bytesOf(*m);
            for (const std::optional<core::Matrix>* m : {&s->wo, &s->bq, &s->bk, &s->bv, &s->bo, &s->qNorm, &s->kNorm})
                bytes += *m ? bytesOf(**m) : 0;
        }
        return bytes;
    }

private:
    Side m_before, m_after;
};

}  // namespace

DocumentCommand::DocumentCommand(Document* document, std::shared_ptr<Edit> edit, const QString& text,
                                 QUndoCommand* parent)
    : QUndoCommand(parent), m_document(document), m_edit(std::move(edit))
{
    Q_ASSERT(m_edit);
    setText(text);
}

void DocumentCommand::undo()
{
    m_document->applyEdit(*m_edit, false);
}

void DocumentCommand::redo()
{
    m_document->applyEdit(*m_edit, true);
}

bool DocumentCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const DocumentCommand*>(other);
    if (o->m_document != m_document || m_document->m_rebuildingHistory || !m_edit->merge(*o->m_edit))
        return false;
    setText(o->text());  // the newer step names where the merged one ends ("… to 0.75")
    setObsolete(m_edit->isNull());
    return true;
}

/** The command, its private part and the edit object: a few hundred bytes however small the edit. */
constexpr std::size_t commandOverhead = 256;

std::size_t DocumentCommand::byteSize() const
{
    return commandOverhead + sizeof(*this) + bytesOf(text()) + m_edit->heapBytes();
}

std::size_t commandBytes(const QUndoCommand* command)
{
    if (const auto* step = dynamic_cast<const DocumentCommand*>(command))
        return step->byteSize();
    std::size_t bytes = commandOverhead + sizeof(QUndoCommand) + bytesOf(command->text());
    for (int i = 0; i < command->childCount(); ++i)
        bytes += commandBytes(command->child(i));
    return bytes;
}

QUndoCommand* copyOfCommand(const QUndoCommand* command, QUndoCommand* parent)
{
    if (const auto* step = dynamic_cast<const DocumentCommand*>(command))
        return new DocumentCommand(step->m_document, step->m_edit, step->text(), parent);
    auto* copy = new QUndoCommand(command->text(), parent);
    for (int i = 0; i < command->childCount(); ++i)
        copyOfCommand(command->child(i), copy);
    return copy;
}

std::shared_ptr<Edit> cellEdit(MatrixId id, int row, int col, double before, double after)
{
    return std::make_shared<CellEdit>(id, row, col, before, after);
}

std::shared_ptr<Edit> matrixEdit(MatrixId id, const core::Matrix& before, const core::Matrix& after)
{
    Q_ASSERT(before.rows() == after.rows() && before.cols() == after.cols());
    // The rectangle that holds every cell that differs.
    Eigen::Index top = before.rows(), bottom = -1, left = before.cols(), right = -1;
    for (Eigen::Index c = 0; c < before.cols(); ++c)
        for (Eigen::Index r = 0; r < before.rows(); ++r)
            if (before(r, c) != after(r, c)) {
                top = std::min(top, r);
                bottom = std::max(bottom, r);
                left = std::min(left, c);
                right = std::max(right, c);
            }
    if (bottom < 0)
        top = left = 0, bottom = right = -1;  // nothing differs: an empty rectangle
    const Eigen::Index rows = bottom - top + 1, cols = right - left + 1;
    const bool whole = rows == before.rows() && cols == before.cols();
    return std::make_shared<BlockEdit>(id, int(top), int(left), before.block(top, left, rows, cols),
                                       after.block(top, left, rows, cols), whole);
}

std::shared_ptr<Edit> optionsEdit(const core::Options& before, const core::Options& after)
{
    return std::make_shared<OptionsEdit>(before, after);
}

std::shared_ptr<Edit> outputProjectionEdit(const core::AttentionModel& model, bool on)
{
    if (on) {
        const core::Matrix added = core::defaultOutputProjection(model);
        return std::make_shared<OutputProjectionEdit>(std::nullopt, std::nullopt, added.rows(), added.cols());
    }
    Q_ASSERT(model.wo);
    return std::make_shared<OutputProjectionEdit>(*model.wo, model.bo, 0, 0);
}

std::shared_ptr<Edit> tokensEdit(const core::AttentionModel& model, const QString& beforeText,
                                 std::vector<std::string> tokens, core::Matrix embeddings, const QString& afterText,
                                 bool startsBurst)
{
    const bool same = tokens == model.tokens && embeddings == model.embeddings;
    TokensEdit::Side before{model.tokens, same ? core::Matrix() : model.embeddings, beforeText};
    TokensEdit::Side after{std::move(tokens), same ? core::Matrix() : std::move(embeddings), afterText};
    return std::make_shared<TokensEdit>(std::move(before), std::move(after), !same, startsBurst);
}

std::shared_ptr<Edit> shapeEdit(const core::AttentionModel& before, core::AttentionModel after)
{
    ShapeEdit::Side b{before.embeddings, before.wq, before.wk, before.wv, before.wo, before.bq, before.bk, before.bv,
                      before.bo, before.qNorm, before.kNorm, before.options.heads, before.options.kvHeads};
    ShapeEdit::Side a{std::move(after.embeddings), std::move(after.wq), std::move(after.wk), std::move(after.wv),
                      std::move(after.wo), std::move(after.bq), std::move(after.bk), std::move(after.bv),
                      std::move(after.bo), std::move(after.qNorm), std::move(after.kNorm), after.options.heads,
                      after.options.kvHeads};
    return std::make_shared<ShapeEdit>(std::move(b), std::move(a));
}

namespace {

/** The session of the edits a model session makes: only that session applies them. */
ModelSession& modelSessionOf(Session& session)
{
    Q_ASSERT(dynamic_cast<ModelSession*>(&session));
    return static_cast<ModelSession&>(session);
}

class ModelWeightsEdit final : public Edit {
public:
    ModelWeightsEdit(std::vector<Gpt2CellChange> cells, std::vector<AblationChange> ablations)
        : m_cells(std::move(cells)), m_ablations(std::move(ablations))
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        return modelSessionOf(session).applyWeights(m_cells, m_ablations, forward);
    }
    std::size_t heapBytes() const override
    {
        return m_cells.capacity() * sizeof(Gpt2CellChange) + m_ablations.capacity() * sizeof(AblationChange);
    }
    int mergeId() const override { return m_cells.size() == 1 && m_ablations.empty() ? SetCellId : -1; }
    bool merge(const Edit& next) override
    {
        const auto* o = dynamic_cast<const ModelWeightsEdit*>(&next);
        if (!o || m_cells.size() != 1 || o->m_cells.size() != 1 || !m_ablations.empty() || !o->m_ablations.empty())
            return false;
        Gpt2CellChange& mine = m_cells.front();
        const Gpt2CellChange& theirs = o->m_cells.front();
        if (mine.layer != theirs.layer || mine.weight != theirs.weight || mine.row != theirs.row || mine.col != theirs.col)
            return false;
        mine.after = theirs.after;
        return true;
    }
    bool isNull() const override
    {
        return std::all_of(m_cells.begin(), m_cells.end(), [](const Gpt2CellChange& c) { return c.before == c.after; })
            && std::all_of(m_ablations.begin(), m_ablations.end(), [](const AblationChange& a) { return a.before == a.after; });
    }

private:
    std::vector<Gpt2CellChange> m_cells;
    std::vector<AblationChange> m_ablations;
};

std::size_t bytesOf(const ModelText& text)
{
    return bytesOf(text.text) + text.ids.capacity() * sizeof(int);
}

class ModelTextEdit final : public Edit {
public:
    ModelTextEdit(ModelText before, QString after, bool startsBurst)
        : m_before(std::move(before)), m_after(std::move(after)), m_startsBurst(startsBurst)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        ModelSession& model = modelSessionOf(session);
        return forward ? model.applyText(m_after) : model.applyModelText(m_before);
    }
    std::size_t heapBytes() const override { return bytesOf(m_before) + bytesOf(m_after); }
    int mergeId() const override { return TokenTextId; }
    bool merge(const Edit& next) override
    {
        const auto* o = dynamic_cast<const ModelTextEdit*>(&next);
        if (!o || o->m_startsBurst)
            return false;
        m_after = o->m_after;
        return true;
    }
    /** Typing back to the text changes nothing only where its tokens were its own and Append had chosen none. */
    bool isNull() const override { return m_before.text == m_after && !m_before.chosen && m_before.drawn == 0; }

private:
    ModelText m_before;
    QString m_after;
    bool m_startsBurst;
};

/** Tokens the model appended: the text and its tokens before and after. The steps of one Append of several merge. */
class ModelAppendEdit final : public Edit {
public:
    ModelAppendEdit(ModelText before, ModelText after, int batch)
        : m_before(std::move(before)), m_after(std::move(after)), m_batch(batch)
    {
    }
    EditResult apply(Session& session, bool forward) override
    {
        return modelSessionOf(session).applyModelText(forward ? m_after : m_before);
    }
    std::size_t heapBytes() const override { return bytesOf(m_before) + bytesOf(m_after); }
    int mergeId() const override { return AppendId; }
    bool merge(const Edit& next) override
    {
        const auto* o = dynamic_cast<const ModelAppendEdit*>(&next);
        if (!o || o->m_batch != m_batch)
            return false;
        m_after = o->m_after;
        return true;
    }

private:
    ModelText m_before, m_after;
    int m_batch;
};

}  // namespace

std::shared_ptr<Edit> modelWeightsEdit(std::vector<Gpt2CellChange> cells, std::vector<AblationChange> ablations)
{
    return std::make_shared<ModelWeightsEdit>(std::move(cells), std::move(ablations));
}

std::shared_ptr<Edit> modelTextEdit(ModelText before, const QString& after, bool startsBurst)
{
    return std::make_shared<ModelTextEdit>(std::move(before), after, startsBurst);
}

std::shared_ptr<Edit> modelAppendEdit(ModelText before, ModelText after, int batch)
{
    return std::make_shared<ModelAppendEdit>(std::move(before), std::move(after), batch);
}

}  // namespace ui
