#pragma once
/** StepsPanel: the seven steps of self-attention in the order of the maths, each with its title,
 *  formula, shape and matrix, for the head and query the ViewState names. */

#include <QWidget>

#include <vector>

class QComboBox;
class QVBoxLayout;
class QLabel;
class QScrollArea;
class QSpinBox;

namespace ui {

class FlowLayout;

class Document;
class RopeChartWidget;
class StepBlock;
class StepTableModel;
class ViewState;

class StepsPanel : public QWidget {
    Q_OBJECT
public:
    StepsPanel(Document* document, ViewState* view, QWidget* parent = nullptr);

    /** How many steps are shown (seven). */
    int stepCount() const { return int(m_steps.size()); }
    /** Step number's (1–7) title, formula (plain text), shape text and blocks. */
    QString stepTitle(int number) const;
    QString stepFormula(int number) const;
    QString stepShape(int number) const;
    std::vector<StepBlock*> stepBlocks(int number) const;
    /** Step 3's chart of the score over the distance (shown with rotary positions only). */
    RopeChartWidget* ropeChart() const { return m_ropeChart; }
    /** Decimals of every table (0–6). */
    int precision() const;
    void setPrecision(int decimals);

private:
    /** Step 2's blocks (shown as Q before the turn, Q′, K before the turn, K′, V). */
    enum { stepQ, stepK, stepV, stepQUnrotated, stepKUnrotated };

    struct StepWidgets {
        QLabel* title = nullptr;
        QLabel* formula = nullptr;
        QLabel* shape = nullptr;
        QLabel* note = nullptr;
        FlowLayout* row = nullptr;  ///< the blocks, side by side, wrapping when the panel is narrow
        std::vector<StepBlock*> blocks;
        std::vector<QString> named;  ///< per block, the title and caption its table's name was made of
    };

    StepWidgets& addStep(QVBoxLayout* column);
    StepBlock* addBlock(StepWidgets& step, StepTableModel* model, const QString& caption);
    void refresh();
    void updateChoosers();

    Document* m_document;
    ViewState* m_view;
    QComboBox* m_head;
    QComboBox* m_query;
    QSpinBox* m_precision;
    QScrollArea* m_scroll = nullptr;
    QVBoxLayout* m_column = nullptr;  ///< the steps, one under the other
    std::vector<StepWidgets> m_steps;
    RopeChartWidget* m_ropeChart = nullptr;
};

}  // namespace ui
