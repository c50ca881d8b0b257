#include "ui/hub/cachedmodels.h"

#include <QLocale>

namespace hub {

CachedModelsModel::CachedModelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CachedModelsModel::reload(const QString& cache)
{
    beginResetModel();
    m_models = core::listCachedModels(cache.toStdString());
    endResetModel();
}

const core::CachedModel* CachedModelsModel::modelAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_models.size() ? &m_models[std::size_t(row)] : nullptr;
}

int CachedModelsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_models.size());
}

int CachedModelsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CachedModelsModel::data(const QModelIndex& index, int role) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const core::CachedModel& model = m_models[std::size_t(index.row())];
    const QString problem = QString::fromStdString(model.problem);
    if (role == Qt::ToolTipRole)
        return problem.isEmpty() ? QString::fromStdString(model.folder) : problem;
    if (role == FolderRole)
        return QString::fromStdString(model.folder);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case IdColumn:
        return QString::fromStdString(model.id.text());
    case ArchitectureColumn:
        return model.architecture.empty() ? tr("unknown") : QString::fromStdString(model.architecture);
    case SizeColumn:
        return QLocale().formattedDataSize(qint64(model.bytes));
    case StatusColumn:
        return problem.isEmpty() ? tr("can be opened") : problem;
    default:
        return {};
    }
}

QVariant CachedModelsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Model");
    case ArchitectureColumn:
        return tr("Architecture");
    case SizeColumn:
        return tr("Size on disk");
    case StatusColumn:
        return tr("Status");
    default:
        return {};
    }
}

Qt::ItemFlags CachedModelsModel::flags(const QModelIndex& index) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return Qt::NoItemFlags;
    // A model the program cannot open is shown greyed, not hidden: its reason is the answer to "why not?".
    return m_models[std::size_t(index.row())].problem.empty() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable
                                                              : Qt::NoItemFlags;
}

} // namespace hub
