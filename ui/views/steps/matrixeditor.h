#pragma once
/** MatrixEditorPanel: the editable matrices X, W_Q, W_K, W_V and W_O, one tab each, with copy,
 *  paste, fill actions and a line for what was refused. */

#include "ui/document/document.h"

#include <QWidget>

#include <array>

class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QToolButton;

namespace core {
struct BlockError;
}

namespace ui {

class FlowLayout;
class MatrixTableModel;
class ViewState;

class MatrixEditorPanel : public QWidget {
    Q_OBJECT
public:
    MatrixEditorPanel(Document* document, ViewState* view, QWidget* parent = nullptr);

    /** The matrix of the current tab. */
    MatrixId currentMatrix() const;
    void setCurrentMatrix(MatrixId id);
    /** The table and model of a matrix (for tests and the window). */
    QTableView* tableView(MatrixId id) const { return m_tables[std::size_t(id)]; }
    MatrixTableModel* tableModel(MatrixId id) const { return m_models[std::size_t(id)]; }
    /** The last refusal or notice shown under the tables; empty when none. */
    QString message() const;

    /** Copies the selection of the current table to the clipboard, tab-separated. */
    void copySelection();
    /** Pastes a block from the clipboard at the current cell. */
    void paste();
    /** Pastes text (rows by line, cells by tab, comma, semicolon or spaces: core::parseBlock) at the current
     *  cell of the current matrix: one undo step. A block that does not fit is clipped and the message says so;
     *  text that is not numbers is refused with the reason. Returns whether anything changed. */
    bool pasteText(const QString& text);
    /** Fills the current matrix with seeded random numbers (Glorot uniform), one undo step. */
    void fillRandom();
    void fillZeros();
    void fillIdentity();
    /** Multiplies every cell of the current matrix by the factor box's value. */
    void scale();

protected:
    void changeEvent(QEvent* event) override;

private:
    /** Why a text could not be pasted, in the window's language. */
    static QString blockErrorText(const core::BlockError& error);

    /** The table of matrix id with its model, delegate, headers and copy and paste; kept in m_tables. */
    QTableView* newTable(MatrixId id);
    /** W_O's page: its table, or in its place a word on a model without W_O and a button to add one. */
    QWidget* outputPage(QTableView* table);
    /** The tools above the tables: copy, paste, fills, scale, decimals, and a model session's own. */
    FlowLayout* toolRow();
    void retranslate();
    void showMessage(const QString& text);
    void updateOutputPage();
    void updateBaseColors();
    void setCurrentMatrixValue(const core::Matrix& value, const QString& actionText);

    Document* m_document;
    ViewState* m_view;
    QTabWidget* m_tabs;
    std::array<QTableView*, 5> m_tables{};
    std::array<MatrixTableModel*, 5> m_models{};
    QStackedWidget* m_outputStack = nullptr;
    QSpinBox* m_seed;
    QDoubleSpinBox* m_factor;
    QSpinBox* m_precision;
    QLabel* m_message;
    QWidget* m_modelTools = nullptr;  ///< Zero Head, Reset Layer, Reset All: model sessions only
    QToolButton* m_copyButton = nullptr;
    QToolButton* m_pasteButton = nullptr;
    QToolButton* m_randomButton = nullptr;
    QToolButton* m_zerosButton = nullptr;
    QToolButton* m_identityButton = nullptr;
    QToolButton* m_scaleButton = nullptr;
    QToolButton* m_zeroHeadButton = nullptr;
    QToolButton* m_resetLayerButton = nullptr;
    QToolButton* m_resetAllButton = nullptr;
};

/** The name the main window knows the panel by. */
using MatrixEditor = MatrixEditorPanel;

}  // namespace ui
