#pragma once
/** SessionController: the window's session files. Opening, saving, the recent files, a dropped file,
 *  presets, recovery of an autosaved session and the prompts about unsaved changes. */

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QMainWindow;
class QMenu;
class QMimeData;
class QWidget;

namespace ui {

class Autosave;
class Document;

class SessionController : public QObject {
    Q_OBJECT
public:
    /** Works on document for window (which shows its status messages and parents its file dialogs);
     *  message boxes go to dialogParent(), which may be another window while it covers this one. */
    SessionController(Document* document, QMainWindow* window, std::function<QWidget*()> dialogParent);
    ~SessionController() override;

    /** The autosave of this session (every 30 s or so while there are unsaved changes). */
    Autosave* autosave() const { return m_autosave; }

    /** Opens a session file without asking about unsaved changes; on failure the document is
     *  untouched and error says why. A successful open is added to the recent files. */
    bool openFile(const QString& path, QString* error);
    /** Saves to path; false and a message in error when it could not be written. */
    bool saveFile(const QString& path, QString* error);
    /** Loads a built-in preset without asking; false for an unknown name. */
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

    /** Shows a warning box (object name "errorBox") without waiting for it. */
    void showError(const QString& title, const QString& text);
    /** Shows text in the window's status bar for timeoutMs (0: until replaced). */
    void showStatus(const QString& text, int timeoutMs = 6000);

signals:
    /** windowTitle() changed for a reason the document does not announce (a recovery). */
    void titleChanged();

private:
    void openAsked(const QString& path);
    void addRecentFile(const QString& path);
    void updateRecentMenu();

    Document* m_document;
    QMainWindow* m_window;
    std::function<QWidget*()> m_dialogParent;
    Autosave* m_autosave;
    QMenu* m_recentMenu = nullptr;
    bool m_recovered = false;  ///< the document came from an autosave and is not saved yet
};

}  // namespace ui
