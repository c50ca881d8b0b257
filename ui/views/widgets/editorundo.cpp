#include "ui/views/widgets/editorundo.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QSpinBox>
#include <QUndoStack>

namespace ui {

namespace {

/** Puts back the value a spin box holds when what is typed in it has not been entered yet (its keyboard tracking
 *  is off); whether there was such typing. */
bool dropTypingNotEntered(QObject* editor)
{
    auto* box = qobject_cast<QAbstractSpinBox*>(editor);
    if (!box)
        return false;
    const QString typed = box->text();
    if (auto* spin = qobject_cast<QSpinBox*>(box))
        spin->setValue(spin->value());
    else if (auto* spin = qobject_cast<QDoubleSpinBox*>(box))
        spin->setValue(spin->value());
    return box->text() != typed;
}

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
        // Typing not yet entered is not in the document: undo takes it back first, as in a cell being edited.
        // Otherwise the editor does not claim the key as an override, so the window's shortcut gets it. A key
        // press arrives only when no shortcut took it: it ends here, not in the editor's own undo.
        const bool dropped = type == QEvent::ShortcutOverride && key->matches(QKeySequence::Undo)
            && dropTypingNotEntered(watched);
        event->setAccepted(type == QEvent::KeyPress || dropped);
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
