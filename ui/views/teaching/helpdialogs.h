#pragma once
/** HelpDialogs: the Help menu's windows. The quick start (shown at the first start, until "Don't show
 *  again" is left ticked), the keyboard shortcuts read from the menus' own actions, and what the
 *  program can do. None is modal: nothing waits for them to close. */

#include <QDialog>
#include <QObject>
#include <QPointer>

class QMainWindow;
class QString;
class QTextBrowser;

namespace ui {

class HelpDialogs : public QObject {
    Q_OBJECT
public:
    /** Dialogs over window; the shortcuts are those of window's menu bar. */
    explicit HelpDialogs(QMainWindow* window);

    /** Shows the quick start if the settings say to (true at the first start); returns whether it did. */
    bool showQuickStartIfFirst();
    /** Shows (or raises) the quick start. */
    void showQuickStart();
    /** Shows (or raises) the list of every menu entry that has a key, with its keys. */
    void showShortcuts();
    /** Shows (or raises) what the program can do. */
    void showWhatYouCanDo();

    /** The open dialogs, null when closed (tests). */
    QDialog* quickStart() const { return m_quickStart; }
    QDialog* shortcuts() const { return m_shortcuts; }
    QDialog* whatYouCanDo() const { return m_whatYouCanDo; }

    /** The shortcuts as an HTML table, one section per top-level menu, in the current language. */
    QString shortcutsHtml() const;

    /** The settings key that says whether the quick start opens at start. */
    static QString quickStartKey();

private:
    QDialog* newDialog(const char* objectName);
    /** A new dialog of size holding a text browser (returned) over a Close button. */
    QTextBrowser* newTextDialog(const char* objectName, QSize size);

    QMainWindow* m_window;
    QPointer<QDialog> m_quickStart;
    QPointer<QDialog> m_shortcuts;
    QPointer<QDialog> m_whatYouCanDo;
};

}  // namespace ui
