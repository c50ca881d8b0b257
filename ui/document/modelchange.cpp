#include "modelchange.h"

#include "core/attention/model.h"

#include <QCoreApplication>

namespace ui {

QString matrixKey(MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return QStringLiteral("embeddings");
    case MatrixId::Query: return QStringLiteral("weights.query");
    case MatrixId::Key: return QStringLiteral("weights.key");
    case MatrixId::Value: return QStringLiteral("weights.value");
    case MatrixId::Output: return QStringLiteral("weights.output");
    }
    return {};
}

QString matrixTitle(MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return QCoreApplication::translate("ui::MatrixTitle", "X");
    case MatrixId::Query: return QCoreApplication::translate("ui::MatrixTitle", "W_Q");
    case MatrixId::Key: return QCoreApplication::translate("ui::MatrixTitle", "W_K");
    case MatrixId::Value: return QCoreApplication::translate("ui::MatrixTitle", "W_V");
    case MatrixId::Output: return QCoreApplication::translate("ui::MatrixTitle", "W_O");
    }
    return {};
}

QString biasTitle(MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return {};
    case MatrixId::Query: return QCoreApplication::translate("ui::MatrixTitle", "b_Q");
    case MatrixId::Key: return QCoreApplication::translate("ui::MatrixTitle", "b_K");
    case MatrixId::Value: return QCoreApplication::translate("ui::MatrixTitle", "b_V");
    case MatrixId::Output: return QCoreApplication::translate("ui::MatrixTitle", "b_O");
    }
    return {};
}

core::Matrix* matrixOf(core::AttentionModel& m, MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return &m.embeddings;
    case MatrixId::Query: return &m.wq;
    case MatrixId::Key: return &m.wk;
    case MatrixId::Value: return &m.wv;
    case MatrixId::Output: return m.wo ? &*m.wo : nullptr;
    }
    return nullptr;
}

const core::Matrix* matrixOf(const core::AttentionModel& m, MatrixId id)
{
    return matrixOf(const_cast<core::AttentionModel&>(m), id);
}

core::Matrix* biasOf(core::AttentionModel& m, MatrixId id)
{
    std::optional<core::Matrix>* bias = nullptr;
    switch (id) {
    case MatrixId::Embeddings: return nullptr;
    case MatrixId::Query: bias = &m.bq; break;
    case MatrixId::Key: bias = &m.bk; break;
    case MatrixId::Value: bias = &m.bv; break;
    case MatrixId::Output: bias = m.wo ? &m.bo : nullptr; break;
    }
    return bias && *bias ? &**bias : nullptr;
}

const core::Matrix* biasOf(const core::AttentionModel& m, MatrixId id)
{
    return biasOf(const_cast<core::AttentionModel&>(m), id);
}

double* cellOf(core::AttentionModel& model, MatrixId id, int row, int col)
{
    core::Matrix* m = matrixOf(model, id);
    if (!m || row < 0 || col < 0 || col >= m->cols())
        return nullptr;
    if (row < m->rows())
        return &(*m)(row, col);
    core::Matrix* bias = biasOf(model, id);
    return row == m->rows() && bias && col < bias->cols() ? &(*bias)(0, col) : nullptr;
}

const double* cellOf(const core::AttentionModel& model, MatrixId id, int row, int col)
{
    return cellOf(const_cast<core::AttentionModel&>(model), id, row, col);
}

int tableRows(const core::AttentionModel& model, MatrixId id)
{
    const core::Matrix* m = matrixOf(model, id);
    return m ? int(m->rows()) + (biasOf(model, id) ? 1 : 0) : 0;
}

core::Matrix tableOf(const core::AttentionModel& model, MatrixId id)
{
    const core::Matrix* m = matrixOf(model, id);
    if (!m)
        return {};
    const core::Matrix* bias = biasOf(model, id);
    if (!bias)
        return *m;
    core::Matrix table(m->rows() + 1, m->cols());
    table.topRows(m->rows()) = *m;
    table.bottomRows(1) = *bias;
    return table;
}

}  // namespace ui
