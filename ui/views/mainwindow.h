#pragma once
/** The main window: the document's views around the attention heatmap, with menus, docks and files. */

#include <QMainWindow>
#include <QSize>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QUndoView;

namespace ui {

class Autosave;
class Document;
class HeatmapWidget;
class MatrixEditorPanel;
class OptionsPanel;
class TeachingView;
class TokenBar;
class ViewState;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_document; }
    ViewState* viewState() const { return m_viewState; }
    HeatmapWidget* heatmap() const { return m_heatmap; }
    TokenBar* tokenBar() const { return m_tokenBar; }
    OptionsPanel* optionsPanel() const { return m_options; }

    /** Opens a session file without asking about unsaved changes; on failure the current document
     *  is untouched and error says why. A successful open is added to the recent files. */
    bool openFile(const QString& path, QString* error);
    /** Saves to path; false and a message in error when it could not be written. */
    bool saveFile(const QString& path, QString* error);
    /** Writes the heatmap as shown to path (.png, .svg or .pdf); false and a message on failure. */
    bool exportHeatmap(const QString& path, QString* error, QSize pixelSize = QSize());
    /** The size the heatmap figure is drawn at by default (what an empty pixelSize means). */
    QSize heatmapPreferredSize() const;
    /** Loads a built-in preset without asking; false for an unknown name. */
    bool loadPreset(const QString& name);
    /** The recent session files, newest first. */
    QStringList recentFiles() const;

    /** Asks to save unsaved changes: true when it is fine to go on (saved or discarded). */
    bool maybeSave();

    /** This window's autosave (every 30 s or so while there are unsaved changes). */
    Autosave* autosave() const { return m_autosave; }
    /** When a window that is gone (crashed, killed) left unsaved changes, asks whether to recover
     *  them: Recover loads them as an unsaved document, Discard deletes them, Decide Later keeps
     *  them for the next start. The app calls it once at start. True when a session was recovered. */
    bool offerRecovery();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createDocks();
    void createActions();
    void createMenus();
    void createStatusBar();
    void readSettings();
    void writeSettings() const;
    QDockWidget* addDock(QWidget* content, const QString& title, const QString& name, Qt::DockWidgetArea area);

    void newSession();
    void openDialog();
    void openInteractively(const QString& path);
    void openAsked(const QString& path);
    bool save();
    bool saveAs();
    void exportDialog();
    void copyHeatmap();
    void about();
    void resetLayout();
    void toggleFullScreen(bool on);
    void startTeaching();
    QString askSavePath(const QString& title, const QString& suffix, const QString& filter);
    void exportReportDialog();
    void exportStepsDialog();
    void exportCodeDialog();
    void copyCode();
    void importMatrixDialog();
    void exportMatrixDialog();

    /** Sets every text of the window in the current language. */
    void retranslate();
    void updateUndoTexts();
    void updateTitle();
    void updateStatus();
    void updateRecentMenu();
    void addRecentFile(const QString& path);
    void showError(const QString& title, const QString& text);
    QString sessionTitle() const;
    /** The window dialogs belong to: the teaching slides while they are up, else this one. */
    QWidget* dialogParent();
    QString suggestedBaseName() const;

    Document* m_document;
    ViewState* m_viewState;
    Autosave* m_autosave = nullptr;
    bool m_recovered = false;  ///< the document came from an autosave and is not saved yet
    HeatmapWidget* m_heatmap = nullptr;
    TokenBar* m_tokenBar = nullptr;
    OptionsPanel* m_options = nullptr;
    QList<QDockWidget*> m_docks;
    QByteArray m_defaultState;

    QMenu* m_fileMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_editMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_stepMenu = nullptr;
    QMenu* m_colourMenu = nullptr;
    QMenu* m_panelsMenu = nullptr;
    QMenu* m_languageMenu = nullptr;
    QMenu* m_presetsMenu = nullptr;
    QMenu* m_helpMenu = nullptr;
    QUndoView* m_history = nullptr;
    QAction* m_newAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_copyAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_undoAction = nullptr;
    QAction* m_redoAction = nullptr;
    QAction* m_fullScreenAction = nullptr;
    QAction* m_resetLayoutAction = nullptr;
    QAction* m_teachingAction = nullptr;
    QAction* m_scalingAction = nullptr;
    QAction* m_exportReportAction = nullptr;
    QAction* m_exportStepsAction = nullptr;
    QAction* m_exportCodeAction = nullptr;
    QAction* m_copyCodeAction = nullptr;
    QAction* m_importMatrixAction = nullptr;
    QAction* m_exportMatrixAction = nullptr;
    MatrixEditorPanel* m_matrices = nullptr;
    TeachingView* m_teaching = nullptr;
    QDockWidget* m_scalingDock = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_aboutQtAction = nullptr;
    QList<QAction*> m_presetActions;

    QLabel* m_dimensions = nullptr;
    QLabel* m_computing = nullptr;
    int m_undoIndex = 0;
};

}  // namespace ui
