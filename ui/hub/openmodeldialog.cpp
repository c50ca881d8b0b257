#include "ui/hub/openmodeldialog.h"

#include "ui/hub/cachedmodels.h"
#include "ui/hub/downloaddialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace hub {

OpenModelDialog::OpenModelDialog(HubSettings settings, QString startFolder, QWidget* parent)
    : QDialog(parent), m_settings(std::move(settings)), m_startFolder(std::move(startFolder)),
      m_models(new CachedModelsModel(this)), m_table(new QTableView(this)), m_empty(new QLabel(this))
{
    setWindowTitle(tr("Open Model"));
    auto* heading = new QLabel(tr("<b>Models on this computer</b>"), this);
    auto* where = new QLabel(tr("In the Hugging Face cache, %1. A greyed model cannot be opened here; its status "
                                "says why.")
                                 .arg(QDir::toNativeSeparators(m_settings.cache)),
                             this);
    where->setObjectName(QStringLiteral("cacheFolder"));
    where->setWordWrap(true);
    where->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_table->setObjectName(QStringLiteral("cachedModels"));
    m_table->setModel(m_models);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    // a long reason wraps in its row rather than losing its end
    m_table->setWordWrap(true);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(CachedModelsModel::StatusColumn, QHeaderView::Stretch);
    m_table->setAccessibleName(tr("Models in the Hugging Face cache"));
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &OpenModelDialog::updateButtons);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (m_models->flags(index) & Qt::ItemIsEnabled)
            openSelected();
    });

    m_empty->setObjectName(QStringLiteral("noCachedModels"));
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setMargin(24);
    m_empty->setText(tr("No models in the cache yet. Download one from the Hub (a network is needed once), or "
                        "choose a folder that holds config.json, the weights as safetensors and the tokenizer."));

    auto* buttons = new QDialogButtonBox(this);
    m_open = buttons->addButton(tr("Open"), QDialogButtonBox::AcceptRole);
    m_open->setObjectName(QStringLiteral("openCachedModel"));
    m_open->setDefault(true);
    QPushButton* download = buttons->addButton(tr("Download…"), QDialogButtonBox::ActionRole);
    download->setObjectName(QStringLiteral("downloadModel"));
    download->setToolTip(tr("Fetch a model from the Hugging Face Hub into the cache, then open it"));
    QPushButton* folder = buttons->addButton(tr("Choose Folder…"), QDialogButtonBox::ActionRole);
    folder->setObjectName(QStringLiteral("chooseModelFolder"));
    folder->setToolTip(tr("Open a model folder anywhere: config.json, the safetensors weights and the tokenizer"));
    buttons->addButton(QDialogButtonBox::Cancel)->setObjectName(QStringLiteral("cancelOpenModel"));
    connect(m_open, &QPushButton::clicked, this, &OpenModelDialog::openSelected);
    connect(download, &QPushButton::clicked, this, &OpenModelDialog::download);
    connect(folder, &QPushButton::clicked, this, &OpenModelDialog::chooseFolder);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(heading);
    layout->addWidget(where);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_empty, 1);
    layout->addWidget(buttons);
    resize(760, 420);
    reload();
}

void OpenModelDialog::reload()
{
    m_models->reload(m_settings.cache);
    const bool any = m_models->rowCount() > 0;
    m_table->setVisible(any);
    m_empty->setVisible(!any);
    // The first model that can be opened is chosen, so that Enter opens it.
    for (int row = 0; row < m_models->rowCount(); ++row)
        if (m_models->flags(m_models->index(row, 0)) & Qt::ItemIsEnabled) {
            m_table->selectRow(row);
            break;
        }
    updateButtons();
}

void OpenModelDialog::updateButtons()
{
    m_open->setEnabled(!m_table->selectionModel()->selectedRows().isEmpty());
}

void OpenModelDialog::openSelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const core::CachedModel* model = rows.isEmpty() ? nullptr : m_models->modelAt(rows.first().row());
    if (!model || !model->problem.empty())
        return;
    m_id = QString::fromStdString(model->id.text());
    m_folder.clear();
    accept();
}

void OpenModelDialog::chooseFolder()
{
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open Model Folder"), m_startFolder);
    if (folder.isEmpty())
        return;
    m_folder = folder;
    m_id.clear();
    accept();
}

void OpenModelDialog::download()
{
    DownloadDialog dialog(m_settings, this);
    connect(&dialog, &DownloadDialog::downloaded, this, [this](const QString& id) { m_id = id; });
    if (dialog.exec() != QDialog::Accepted) {
        reload();  // a cancelled download may have finished some repository's files meanwhile
        return;
    }
    m_folder.clear();
    accept();
}

} // namespace hub
