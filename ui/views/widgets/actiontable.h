#pragma once
/** ActionTable: actions declared once, each with its text, status tip, shortcuts, icon and what it
 *  does; creating the actions and translating them again when the language changes read the same entry. */

#include <QKeySequence>
#include <QList>

#include <functional>
#include <vector>

class QAction;
class QObject;

namespace ui {

class ActionTable {
public:
    /** One action. Texts are untranslated (marked with QT_TRANSLATE_NOOP in the table's context). */
    struct Entry {
        const char* name = nullptr;       ///< object name, e.g. "saveAction"
        const char* text = nullptr;       ///< menu text with its accelerator; null: set elsewhere (undo)
        const char* statusTip = nullptr;  ///< or null
        QList<QKeySequence> shortcuts;
        const char* icon = nullptr;       ///< theme icon name, or null
        std::function<void()> triggered;  ///< null for actions whose signals are wired by hand
    };

    /** Actions are children of owner; texts are translated in context. */
    ActionTable(const char* context, QObject* owner);

    /** Creates the action of entry (in the current language) and keeps the entry for retranslate(). */
    QAction* add(Entry entry);
    /** Sets every text and status tip again in the current language. */
    void retranslate() const;
    /** Every action in the order added. */
    QList<QAction*> actions() const;

private:
    const char* m_context;
    QObject* m_owner;
    std::vector<std::pair<QAction*, Entry>> m_entries;
};

/** The standard key's shortcuts, or fallback where the platform has none (Quit on Windows and bare X). */
QList<QKeySequence> standardOr(QKeySequence::StandardKey key, const QKeySequence& fallback);

}  // namespace ui
