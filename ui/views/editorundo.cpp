#include "editorundo.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QUndoStack>

namespace ui {

namespace {

class EditorUndo : public QObject {
public:
    EditorUndo(QWidget* editor, QUndoStack* stack) : QObject(editor), m_stack(stack) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        const QEvent::Type type = event->type();
        if (type == QEvent::ContextMenu) {
            if (auto* line = qobject_cast<QLineEdit*>(watched)) {
                showContextMenu(line, static_cast<QContextMenuEvent*>(event)->globalPos());
                return true;
            }
        }
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

private:
    /** The line's own menu, its Undo and Redo the document's. */
    void showContextMenu(QLineEdit* line, const QPoint& at)
    {
        QPointer<QMenu> menu = line->createStandardContextMenu();
        QPointer<QUndoStack> stack = m_stack;
        for (QAction* action : menu->actions()) {
            // Qt names them by their text alone ("&Undo\tCtrl+Z", in the line's language).
            const QString text = action->text().section(QLatin1Char('\t'), 0, 0);
            const bool undo = text == QLineEdit::tr("&Undo");
            if (!undo && text != QLineEdit::tr("&Redo"))
                continue;
            action->disconnect(line);
            action->setEnabled(stack && (undo ? stack->canUndo() : stack->canRedo()));
            connect(action, &QAction::triggered, this, [stack, undo] {
                if (stack)
                    undo ? stack->undo() : stack->redo();
            });
        }
        menu->exec(at);
        delete menu;
    }

    QPointer<QUndoStack> m_stack;
};

}  // namespace

void routeUndoToDocument(QWidget* editor, QUndoStack* stack)
{
    editor->installEventFilter(new EditorUndo(editor, stack));
}

}  // namespace ui
