#pragma once
/** HelpDialogs: the Help menu's windows. The quick start (shown at each start until "Don't show
 *  again" is ticked; its buttons open the built-in model's presets in one click), the keyboard shortcuts read from the menus' own actions, and what the
 *  program can do. None is modal: nothing waits for them to close. */

#include <QDialog>
#include <QObject>
#include <QPointer>

#include <functional>

class QMainWindow;
class QString;
class QTextBrowser;

namespace ui {

class HelpDialogs : public QObject {
    Q_OBJECT
public:
    /** Dialogs over window; the shortcuts are those of window's menu bar. */
    explicit HelpDialogs(QMainWindow* window);

    /** Shows the quick start if the settings say to (true until "Don't show again" is ticked); returns whether
     *  it did. */
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
    /** Tells whether a model session is open, for the quick start's word on tokens. */
    void setModelSessionQuery(std::function<bool()> isModelSession) { m_isModelSession = std::move(isModelSession); }
    /** What the quick start's buttons for the built-in model's presets do with a preset's name (load it). */
    void setPresetOpener(std::function<void(const QString&)> open) { m_openPreset = std::move(open); }

private:
    QDialog* newDialog(const char* objectName);
    /** A new dialog of size holding a text browser (returned) over a Close button. */
    QTextBrowser* newTextDialog(const char* objectName, QSize size);
    /** The quick start's texts in the current language, for the session open. */
    void fillQuickStart();
    /** The quick start's first thing to try: what typing does, by the plain session's rule or a model's tokenizer. */
    QString tokensHint() const;

    QMainWindow* m_window;
    QPointer<QDialog> m_quickStart;
    QPointer<QDialog> m_shortcuts;
    QPointer<QDialog> m_whatYouCanDo;
    std::function<bool()> m_isModelSession;
    std::function<void(const QString&)> m_openPreset;
};

}  // namespace ui
