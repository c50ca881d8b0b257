#pragma once
/** SessionController: the window's session files. Opening, saving, the recent files, a dropped file,
 *  presets, recovery of an autosaved session and the prompts about unsaved changes. */

#include <QMetaObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <functional>

class QMainWindow;
class QMenu;
class QMimeData;
class QWidget;

namespace core {
struct ModelSession;
}

namespace ui {

class Autosave;
class Document;
class ViewState;

class SessionController : public QObject {
    Q_OBJECT
public:
    /** Works on document for window (which shows its status messages and parents its file dialogs);
     *  message boxes go to dialogParent(), which may be another window while it covers this one. A session file
     *  keeps view's head and query beside the session, and gives them back when it is opened. */
    SessionController(Document* document, ViewState* view, QMainWindow* window,
                      std::function<QWidget*()> dialogParent);
    ~SessionController() override;

    /** The autosave of this session (every 30 s or so while there are unsaved changes). */
    Autosave* autosave() const { return m_autosave; }

    /** Opens a session file without asking about unsaved changes; on failure the document is
     *  untouched and error says why. A successful open is added to the recent files. */
    bool openFile(const QString& path, QString* error);
    /** Opens a checkpoint folder, or a repository id ("ORG/NAME[@REVISION]") naming no folder from the Hugging Face
     *  cache, as a model session (at layer, from 1, reading text; without text, the sample text) without asking
     *  about unsaved changes; loaded on a worker with a progress bar. On failure or Cancel the document is untouched
     *  and error says why (empty when cancelled). Added to the recent models; a model of the cache is saved as its
     *  id. */
    bool openModelFolder(const QString& folder, QString* error, const QString& text = {}, int layer = 1);
    /** Asks about unsaved changes, then which model (hub::OpenModelDialog: the cache's models, a folder, or a
     *  download); one that cannot be opened gets a box listing what is wrong. */
    void openModelDialog();
    /** Asks about unsaved changes, then downloads a model from the Hub (hub::DownloadDialog) and opens it by its id. */
    void downloadModelDialog();
    /** Asks about unsaved changes, then opens the model that ships with the program (SPEC §7) on the preset that
     *  shows its induction head; errors in a box. */
    void openBuiltinModel();
    /** Asks about unsaved changes, then opens the model folder (a recent one); errors in a box. */
    void openModelInteractively(const QString& folder);
    /** The recent model folders, newest first. */
    QStringList recentModels() const;
    /** The menu the recent models are listed in, kept up to date from now on. */
    void setRecentModelsMenu(QMenu* menu);
    /** The text a model folder opens with. */
    static QString sampleText();
    /** Saves to path; false and a message in error when it could not be written. */
    bool saveFile(const QString& path, QString* error);
    /** Loads a built-in preset without asking: a plain session, or the built-in model at the preset's layer, head
     *  and query (core::modelPreset; a refusal in a box). False for an unknown name or a model that did not open. */
    bool loadPreset(const QString& name);
    /** The recent session files, newest first. */
    QStringList recentFiles() const;
    /** Asks to save unsaved changes: true when it is fine to go on (saved or discarded). */
    bool maybeSave();
    /** Offers an autosaved session a gone window left behind (Recover, Discard, Decide Later);
     *  true when one was recovered. */
    bool offerRecovery();
    /** The window is closing: asks about unsaved changes; true when it may close (the autosave is
     *  then removed, nothing is left to recover). */
    bool closing();

    /** Asks about unsaved changes, then starts again from the worked example. */
    void newSession();
    /** Asks about unsaved changes, then a file to open. */
    void openDialog();
    /** Asks about unsaved changes, then opens path (a recent or dropped file); errors in a box. */
    void openInteractively(const QString& path);
    /** Asks about unsaved changes, then loads the preset name. */
    void choosePreset(const QString& name);
    /** Saves to the session's file, or asks for one; false when not saved. */
    bool save();
    /** Asks for a file and saves there; false when not saved. */
    bool saveAs();

    /** The menu the recent files are listed in, kept up to date from now on. */
    void setRecentMenu(QMenu* menu);
    /** The first local file among mime's URLs, or empty: what a drop would open. */
    static QString localFileOf(const QMimeData* mime);

    /** The title the session gives itself, or empty. */
    QString sessionTitle() const;
    /** A file name without suffix for exports: the session file's, else the title's, else "attention". */
    QString suggestedBaseName() const;
    /** The window title: the file name or the session title, "(recovered)" while unsaved after a
     *  recovery, and the "[*]" of the modified mark. */
    QString windowTitle() const;

    /** Shows a warning box (object name "errorBox") without waiting for it: lead, what the window says went wrong
     *  (translated), as its title and first line; detail, the reason (often the core's words naming the file and
     *  the key), beneath it. Every error box of the window is this one. */
    void showError(const QString& lead, const QString& detail);
    /** Opens path as openFile does; when it is refused, says so in an error box and gives the reason in error. */
    bool openFileOrSay(const QString& path, QString* error = nullptr);
    /** Opens a model folder as openModelFolder does; when it is refused, says so in an error box and gives the
     *  reason in error (cancelled: no box, error empty). */
    bool openModelFolderOrSay(const QString& folder, QString* error = nullptr, const QString& text = {}, int layer = 1);
    /** Shows text in the window's status bar for timeoutMs (0: until replaced). */
    void showStatus(const QString& text, int timeoutMs = 6000);

signals:
    /** windowTitle() changed for a reason the document does not announce (a recovery). */
    void titleChanged();

private:
    void openAsked(const QString& path);
    void addRecentFile(const QString& path);
    void updateRecentMenu();
    void addRecentModel(const QString& folder);
    /** Lists the recent paths kept under key in menu ("&1 name", newest first; none when there is none) and a
     *  Clear List; shortcuts: Alt+Shift+1 … 9. An entry is opened with open; one whose file or folder is gone
     *  leaves the list then. */
    void fillRecentMenu(QMenu* menu, const QString& key, const std::function<QString(const QString&)>& name,
                        const std::function<void(const QString&)>& open, const QString& none, bool shortcuts);
    void updateRecentModelsMenu();
    /** Loads a model session on a worker (ModelLoader) into the document; false with error when refused. */
    bool openModelSession(const core::ModelSession& session, const QString& sessionPath, QString* error);
    /** The head and query a file keeps ("view": {"head", "query"}, from 1; SPEC §2 lets the program add keys). */
    nlohmann::json savedView() const;
    /** Takes the view out of a file's extras and gives it back once the opened session's first trace arrives
     *  (what does not fit that session is left as it is). */
    void restoreViewWhenComputed(nlohmann::json& extras);

    Document* m_document;
    ViewState* m_view;
    QMainWindow* m_window;
    std::function<QWidget*()> m_dialogParent;
    Autosave* m_autosave;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_recentModelsMenu = nullptr;
    bool m_recovered = false;  ///< the document came from an autosave and is not saved yet
    QMetaObject::Connection m_restoreView;  ///< waits for the trace of a file just opened
};

}  // namespace ui
