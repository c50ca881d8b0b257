#include "modelchange.h"

#include "core/model.h"

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

}  // namespace ui
