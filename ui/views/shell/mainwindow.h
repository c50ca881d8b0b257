#pragma once
/** The main window: the document's views around the attention heatmap, with menus and docks. Its
 *  session files live in SessionController, its exports and imports in FileActions, its menus in
 *  MainMenus. */

#include "ui/render/exportresult.h"

#include <QMainWindow>
#include <QSize>

#include <vector>

class QDockWidget;
class QLabel;
class QUndoView;

namespace ui {

class Autosave;
class Document;
class FileActions;
class HeatmapWidget;
class HelpDialogs;
class MainMenus;
class MatrixEditorPanel;
class OptionsPanel;
class OverviewWidget;
class HeadViewWidget;

class PredictionPanel;
class SessionController;
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
    PredictionPanel* predictionPanel() const { return m_prediction; }
    MatrixEditorPanel* matrixEditor() const { return m_matrices; }
    SessionController* session() const { return m_session; }
    FileActions* fileActions() const { return m_files; }
    OverviewWidget* overview() const { return m_overview; }
    HeadViewWidget* headView() const { return m_headView; }

    QDockWidget* overviewDock() const { return m_overviewDock; }

    /** The overview's (and head view's) click: show layer and head (both from 0). A plain session has one
     *  layer, so only the head changes; a model session chooses its layer here too. */
    void showFromOverview(int layer, int head);

    /** See SessionController::openFile(). */
    bool openFile(const QString& path, QString* error);
    /** See SessionController::saveFile(). */
    bool saveFile(const QString& path, QString* error);
    /** See FileActions::exportHeatmap(). */
    render::ExportResult exportHeatmap(const QString& path, QSize pixelSize = QSize());
    /** See FileActions::heatmapPreferredSize(). */
    QSize heatmapPreferredSize() const;
    /** See SessionController::loadPreset(). */
    bool loadPreset(const QString& name);
    /** See SessionController::recentFiles(). */
    QStringList recentFiles() const;
    /** See SessionController::maybeSave(). */
    bool maybeSave();
    /** See SessionController::autosave(). */
    Autosave* autosave() const;
    /** See SessionController::offerRecovery(); the app calls it once at start. */
    bool offerRecovery();
    /** The Help menu's windows. */
    HelpDialogs* help() const;
    /** Shows the quick start when this is the first start (see HelpDialogs); the app calls it once at
     *  start. It is not modal: nothing waits for it. */
    bool showQuickStartIfFirst();

protected:
    bool event(QEvent* event) override;
    void childEvent(QChildEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createDocks();
    QDockWidget* addDock(QWidget* content, const char* title, const QString& name, Qt::DockWidgetArea area);
    /** Restores the window's settings; true when a saved geometry was restored. */
    bool readSettings();
    /** Keeps the window, frame and all, inside its screen's available area: a window (with the frame its window
     *  manager adds) larger than that is made smaller and moved inside. A maximized window is left to the manager. */
    void fitScreen();
    /** Whether windows fit a real screen here (not on the offscreen platform, whose screen is nominal). */
    static bool fitsScreens();
    void writeSettings() const;
    void startTeaching();
    void retranslate();
    void updateTitle();
    void updateStatus();
    /** Says in the status bar how many cells the log colour scale cannot place, when that number changes. */
    void noteLogScale();
    /** The window dialogs belong to: the teaching slides while they are up, else this one. */
    QWidget* dialogParent();

    /** A dock with its untranslated title, set in every language. */
    struct TitledDock {
        QDockWidget* dock;
        const char* title;
    };

    Document* m_document;
    ViewState* m_viewState;
    SessionController* m_session = nullptr;
    FileActions* m_files = nullptr;
    qint64 m_cellsBelowLogScale = 0;  ///< what noteLogScale() last said
    MainMenus* m_menus = nullptr;
    HeatmapWidget* m_heatmap = nullptr;
    TokenBar* m_tokenBar = nullptr;
    OptionsPanel* m_options = nullptr;
    PredictionPanel* m_prediction = nullptr;
    MatrixEditorPanel* m_matrices = nullptr;
    TeachingView* m_teaching = nullptr;
    QDockWidget* m_scalingDock = nullptr;
    QDockWidget* m_matricesDock = nullptr;
    QDockWidget* m_overviewDock = nullptr;
    OverviewWidget* m_overview = nullptr;
    bool m_overviewFollowsTrace = true;  ///< the overview shows the trace (a plain session), not a model's grid
    HeadViewWidget* m_headView = nullptr;

    QUndoView* m_history = nullptr;
    std::vector<TitledDock> m_docks;
    QByteArray m_defaultState;

    QLabel* m_dimensions = nullptr;
    QLabel* m_computing = nullptr;
    int m_undoIndex = 0;
    bool m_showedModel = false;  ///< the document was a model session at its last load
    /** Widens the docks a larger window has room for: the steps to 460 pixels (as far as a quarter of the window
     *  allows) and, in a model session, Next Token to its table's preferred width (as far as three tenths). A
     *  dock wider than that stays as it is. */
    void growDocks();
};

}  // namespace ui
