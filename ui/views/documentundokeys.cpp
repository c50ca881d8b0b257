#include "documentundokeys.h"

#include <QEvent>
#include <QKeyEvent>
#include <QWidget>

namespace ui {

namespace {

class DocumentUndoKeys : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        const QEvent::Type type = event->type();
        if (type != QEvent::ShortcutOverride && type != QEvent::KeyPress)
            return QObject::eventFilter(watched, event);
        const auto* key = static_cast<QKeyEvent*>(event);
        if (!key->matches(QKeySequence::Undo) && !key->matches(QKeySequence::Redo))
            return QObject::eventFilter(watched, event);
        // The editor does not claim the key as an override, so the window's shortcut gets it. A key press
        // arrives only when no shortcut took it (nothing to undo): it ends here, not in the editor's own undo.
        event->setAccepted(type == QEvent::KeyPress);
        return true;
    }
};

}  // namespace

void undoKeysUndoTheDocument(QWidget* editor)
{
    editor->installEventFilter(new DocumentUndoKeys(editor));
}

}  // namespace ui
