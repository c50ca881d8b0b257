#pragma once
/** WalkthroughPanel: one query worked through as the article does: its score against every key,
 *  the scaled scores, the softmax weights, each weighted value row and their sum, its output row. */

#include <QWidget>

class QComboBox;
class QDockWidget;
class QLabel;
class QScrollArea;
class QSpinBox;

namespace ui {

class Document;
class StepTableModel;
class ViewState;

class WalkthroughPanel : public QWidget {
    Q_OBJECT
public:
    WalkthroughPanel(Document* document, ViewState* view, QWidget* parent = nullptr);

    /** The weighted value rows shown (row j = w_ij · v_j of the selected query). */
    StepTableModel* weightedValuesModel() const { return m_weighted; }
    /** Everything the panel shows, as plain text, one line per row (for tests and copying). */
    QString plainText() const;
    /** Most keys listed; the rest are summarised in one line. */
    static constexpr int maxKeys = 64;

protected:
    bool event(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    /** Right-click copies the whole walkthrough as text (tab-separated columns). */
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void rebuild();
    void build();

    Document* m_document;
    ViewState* m_view;
    StepTableModel* m_weighted;
    QComboBox* m_query;
    QSpinBox* m_precision;
    QScrollArea* m_scroll;
    QString m_plainText;
    bool m_stale = true;     ///< the trace changed while the panel was hidden
    bool m_inView = true;    ///< false while its dock is a tab behind another
    QDockWidget* m_dock = nullptr;
};

}  // namespace ui
