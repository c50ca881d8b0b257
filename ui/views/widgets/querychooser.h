#pragma once
/** The query combo box the steps and walkthrough panels share. */

#include "core/attention/trace.h"

class QComboBox;

namespace ui {

/** Lists trace's tokens as "1 “Thinking”" (only when they changed, so an open popup stays) and
 *  selects query, clamped to the tokens. A null trace empties the list. */
void syncQueryCombo(QComboBox* combo, const core::Trace* trace, int query);

}  // namespace ui
