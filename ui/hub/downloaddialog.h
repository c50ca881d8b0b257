#pragma once
/** File › Download Model…: a repository id (with suggestions), a progress bar with the bytes, the speed and the time
 *  left, and Cancel; the files go into the Hugging Face cache as --download puts them (HubDownloader). */

#include "ui/hub/hubdownloader.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace hub {

class DownloadDialog : public QDialog {
    Q_OBJECT

public:
    explicit DownloadDialog(HubSettings settings, QWidget* parent = nullptr);

    /** The models offered in the id's list: small ones the program reads or is about to. */
    static QStringList suggestions();

    /** The snapshot folder of the last download that ended well; empty before. */
    QString snapshot() const { return m_snapshot; }

    /** Cancels a download under way before closing. */
    void reject() override;

signals:
    /** A download ended well: the id as typed and its snapshot folder. The dialog then closes (accepted). */
    void downloaded(const QString& id, const QString& snapshot);

private:
    void start();
    void showProgress(const Progress& progress);

    HubSettings m_settings;
    QComboBox* m_id;
    QProgressBar* m_bar;
    QLabel* m_status;
    QPushButton* m_download;
    QPushButton* m_cancel;
    HubDownloader* m_downloader = nullptr;  ///< while a download runs
    QString m_snapshot;
};

} // namespace hub
