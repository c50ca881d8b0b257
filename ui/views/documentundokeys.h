#pragma once
/** The undo and redo keys of an editor that sends every change to the document as it is made. */

class QWidget;

namespace ui {

/** From now on the undo and redo keys pressed in editor (every binding the platform has for QKeySequence::Undo
 *  and Redo) undo and redo the document's steps, through the window's Undo and Redo actions, as Edit › Undo
 *  does. Meant for editors whose text is in the document already (the token line, the option boxes): their
 *  own undo would put back an older text and send it to the document as one more edit, which empties the
 *  redo history. With nothing to undo the key does nothing. */
void undoKeysUndoTheDocument(QWidget* editor);

}  // namespace ui
