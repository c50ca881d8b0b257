#pragma once
/** MainMenus: the main window's menu bar. Every action is one entry of an ActionTable (text, status
 *  tip, shortcuts, icon, what it does), put into the File, Edit, View, Presets and Help menus and
 *  translated again from the same entries when the language changes. */

#include "ui/views/widgets/actiontable.h"

#include <QList>
#include <QObject>

#include <functional>
#include <vector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace ui {

class Document;
class FileActions;
class HeatmapWidget;
class HelpDialogs;
class SessionController;

class MainMenus : public QObject {
    Q_OBJECT
public:
    /** What the window does for entries of the View menu. */
    struct WindowHooks {
        std::function<void()> startTeaching;
        std::function<void()> showScaling;  ///< the "Why √d_k?" panel
        std::function<void()> resetLayout;
    };

    /** Fills window's menu bar. docks are listed in View › Panels (Ctrl+Shift+1 …) in that order. */
    MainMenus(QMainWindow* window, Document* document, HeatmapWidget* heatmap, SessionController* session,
              FileActions* files, const QList<QDockWidget*>& docks, WindowHooks hooks);

    /** Quit, Undo and Redo, for other windows (the teaching slides) to offer too. */
    QList<QAction*> sharedActions() const { return {m_quitAction, m_undoAction, m_redoAction}; }
    /** The Help menu's windows. */
    HelpDialogs* help() const { return m_help; }
    /** Enables the entries that need a heatmap figure (export, copy). */
    void setFigureAvailable(bool available);

private:
    void createActions();
    void createMenus(const QList<QDockWidget*>& docks);
    QMenu* addMenu(QMenu* parent, const char* title);
    void retranslate();
    void updateUndoTexts();

    QMainWindow* m_window;
    Document* m_document;
    HeatmapWidget* m_heatmap;
    SessionController* m_session;
    FileActions* m_files;
    WindowHooks m_hooks;
    ActionTable m_actions;
    HelpDialogs* m_help;

    struct TitledMenu {
        QMenu* menu;
        const char* title;  ///< untranslated
    };
    std::vector<TitledMenu> m_menus;
    QMenu* m_languageMenu = nullptr;
    QList<QAction*> m_presetActions;
    QAction* m_exportAction = nullptr;
    QAction* m_copyAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_undoAction = nullptr;
    QAction* m_redoAction = nullptr;
};

}  // namespace ui
