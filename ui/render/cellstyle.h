#pragma once
/** How the numeric table models show a number: roles, text and tint, shared by every table. */

#include "core/attention/derivation.h"
#include "ui/render/colormap.h"

#include <QColor>
#include <QString>

namespace ui {

/** Item data roles of the matrix and step models beyond Qt's own. */
enum CellRole {
    ValueRole = Qt::UserRole + 1,  ///< double: the cell's exact value
    HighlightRole,                 ///< bool: the hovered cell came from this cell (its row or column)
    HoveredRole,                   ///< bool: this is the hovered cell itself
    MaskedRole,                    ///< bool: the causal mask hides this cell (a key after its query)
    EditedRole,                    ///< bool: a checkpoint's weight cell that differs from the checkpoint
};

/** The label of column (or row) `index` of a matrix whose `count` columns are `heads` blocks side by
 *  side, one per head (W_Q, W_K, W_V, the concatenation; W_O's rows): "h2·1" for the first column of
 *  head 2, 1-based; the plain number "3" for one head or when heads does not divide count. */
QString headedLabel(int index, int count, int heads);
/** Its tooltip: "Head 2, column 1 (column 4 of 6)"; the plain "Column 3" as headedLabel() has no head. */
QString headedLabelToolTip(int index, int count, int heads, bool rows = false);

/** Why a cell is masked, as its tooltip starts: "Masked: key 3 comes after query 1, …" (1-based as given). */
QString maskedCellNote(int query, int key);

/** How a cell the causal mask hides is painted: a grey laid over base (the tint of no value). */
QColor maskedCellColor(const QColor& base);
/** Its text colour: a grey that reads on maskedCellColor(base), dimmer than real numbers. */
QColor maskedTextColor(const QColor& base);

/** The value as every table shows it: render::displayNumber() with exactly `precision` decimals,
 *  the UI locale's decimal separator, no group separators and no "-0". */
QString formatCell(double value, int precision);

/** The background of a cell: colormap's colour for value in [lo, hi], laid lightly over base so
 *  that text stays readable in light and dark palettes. Diverging maps fade to base at their centre. */
QColor cellTint(double value, double lo, double hi, render::ColormapId colormap, const QColor& base);

/** True when source (a cell, or a whole row or column when row or col is −1) covers cell
 *  (row, col) of step in head; head is ignored for steps that are not per head. */
bool covers(const core::CellRef& source, core::Step step, int head, int row, int col);

/** Parses what a user typed into a cell: a C-locale number ("0.5", "1e-3") always, else one in the
 *  UI locale (QLocale(), which the language switch sets), so that what a table or cell editor shows
 *  reads back. Surrounding spaces are ignored; group separators are refused ("1,500" is not 1500).
 *  Returns false for anything that is not a finite number. */
bool parseCellText(const QString& text, double* value);

}  // namespace ui
