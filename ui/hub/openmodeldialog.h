#pragma once
/** File › Open Model…: the models already in the Hugging Face cache (CachedModelsModel: the id, the architecture,
 *  the size; one the program cannot open greyed, with its reason), opened by their id; beside them a model folder
 *  chosen anywhere, and a download from the Hub (DownloadDialog) that opens once it ends. */

#include "ui/hub/hubdownloader.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableView;

namespace hub {

class CachedModelsModel;

class OpenModelDialog : public QDialog {
    Q_OBJECT

public:
    /** Lists settings.cache; Choose Folder… starts in startFolder; Download… fetches with settings. */
    OpenModelDialog(HubSettings settings, QString startFolder, QWidget* parent = nullptr);

    /** After Open (or a double click, or a download that ended well): the repository id to open
     *  ("ORG/NAME[@REVISION]"); empty when a folder was chosen instead. */
    QString chosenId() const { return m_id; }
    /** After Choose Folder…: the folder to open; empty when an id was chosen. */
    QString chosenFolder() const { return m_folder; }

    /** Reads the cache again (also when the dialog is shown). */
    void reload();

private:
    void openSelected();
    void chooseFolder();
    void download();
    void updateButtons();

    HubSettings m_settings;
    QString m_startFolder;
    CachedModelsModel* m_models;
    QTableView* m_table;
    QLabel* m_empty;
    QPushButton* m_open;
    QString m_id;
    QString m_folder;
};

} // namespace hub
