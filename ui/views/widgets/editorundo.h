#pragma once
/** The undo of an editor that sends every change to the document as it is made: the document's. */

class QUndoStack;
class QWidget;

namespace ui {

/** From now on undo and redo in editor undo and redo the document's steps (stack), as Edit › Undo does: the keys
 *  (every binding the platform has for QKeySequence::Undo and Redo) go to the window's Undo and Redo actions, and
 *  a line edit's context menu offers the document's undo and redo in place of its own. Meant for editors whose
 *  text is in the document already (the token line, the option boxes): their own undo would put back an older
 *  text and send it to the document as one more edit, which empties the redo history. With nothing to undo the
 *  key does nothing. In a spin box whose typing is not entered yet, undo first puts back the value it holds. */
void routeUndoToDocument(QWidget* editor, QUndoStack* stack);

}  // namespace ui
