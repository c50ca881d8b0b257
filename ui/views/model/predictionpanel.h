#pragma once
/** PredictionPanel: a model session's next token. The ten most probable tokens after the last position (or a
 *  chosen one) with their probabilities, each marked up or down against the checkpoint without edits; it
 *  follows every edit and every change of the text. Below them, Append lets the model write: the most probable
 *  token, or one sampled with a temperature, top-k, top-p and a seed shown, as --generate chooses. */

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
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

    QPushButton* appendButton() const { return m_append; }
    QPushButton* appendTenButton() const { return m_appendTen; }
    /** Off: the most probable token; on: sampled. */
    QCheckBox* sampleBox() const { return m_sample; }
    QDoubleSpinBox* temperatureBox() const { return m_temperature; }
    QSpinBox* topKBox() const { return m_topK; }
    QDoubleSpinBox* topPBox() const { return m_topP; }
    QSpinBox* seedBox() const { return m_seed; }
    /** The line under Append: where the sampling's stream is. */
    QString writeStatus() const;

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
    /** Gives the controls' sampling to the document, and shows or hides what only sampling uses. */
    void applySampling();
    /** Append's buttons and the line under them follow the session and an Append under way. */
    void syncWrite();

    Document* m_document;
    QComboBox* m_position;
    QLabel* m_status;
    QTableWidget* m_table;
    QLabel* m_empty;  ///< what a plain session shows instead
    QWidget* m_write;  ///< Append and its sampling
    QPushButton* m_append;
    QPushButton* m_appendTen;
    QPushButton* m_stop;
    QCheckBox* m_sample;
    QWidget* m_samplingBoxes;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_topK;
    QDoubleSpinBox* m_topP;
    QSpinBox* m_seed;
    QLabel* m_writeStatus;
};

}  // namespace ui
