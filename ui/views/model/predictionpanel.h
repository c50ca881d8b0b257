#pragma once
/** PredictionPanel: a model session's next token. The ten most probable tokens after the last position (or a
 *  chosen one) with their probabilities, each marked up or down against the checkpoint without edits; it
 *  follows every edit and every change of the text. */

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace ui {

class Document;

class PredictionPanel : public QWidget {
    Q_OBJECT
public:
    explicit PredictionPanel(Document* document, QWidget* parent = nullptr);

    QTableWidget* table() const { return m_table; }
    QComboBox* positionBox() const { return m_position; }
    /** The line above the table (what is predicted, against what). */
    QString status() const;
    /** A width at which the table shows typical predictions whole, without scrolling sideways. */
    int preferredWidth() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void syncPositions();
    /** The box shows the document's position (predictionPosition()). */
    void showChosenPosition();
    void showPrediction();
    /** Every column as wide as its contents, the token column also taking the room left: no text is cut, and
     *  a table narrower than its contents scrolls sideways. */
    void fitColumns();

    Document* m_document;
    QComboBox* m_position;
    QLabel* m_status;
    QTableWidget* m_table;
    QLabel* m_empty;  ///< what a plain session shows instead
};

}  // namespace ui
