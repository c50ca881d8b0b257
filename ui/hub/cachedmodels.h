#pragma once
/** The models in the Hugging Face cache as a table for Open Model: the repository id, its architecture, its size on
 *  disk and whether the program can open it; a model it cannot open is disabled (greyed), its reason in the row's
 *  tool tip and status. */

#include "core/session/hubcache.h"

#include <QAbstractTableModel>

#include <vector>

namespace hub {

class CachedModelsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { IdColumn, ArchitectureColumn, SizeColumn, StatusColumn, ColumnCount };
    /** The role that gives a row's snapshot folder (empty when there is none). */
    static constexpr int FolderRole = Qt::UserRole + 1;

    explicit CachedModelsModel(QObject* parent = nullptr);

    /** Lists the models of cache (core::listCachedModels) in place of those shown. */
    void reload(const QString& cache);

    /** The model of row; nullptr outside the table. */
    const core::CachedModel* modelAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    std::vector<core::CachedModel> m_models;
};

} // namespace hub
