#pragma once
/** OptionsPanel: scaling, temperature, mask, positional encoding, dimensions and W_O, all live. */

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QScrollArea;
class QSlider;
class QSpinBox;

namespace core {
struct AttentionModel;
struct Options;
}

namespace ui {

class Document;
class InlineMessage;

class OptionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit OptionsPanel(Document* document, QWidget* parent = nullptr);
    ~OptionsPanel() override;

    /** The slider position (0 … sliderSteps) that shows temperature t; t is clamped to the slider's range. */
    static int sliderPosition(double temperature);
    /** The temperature a slider position stands for. */
    static double sliderTemperature(int position);
    static constexpr int sliderSteps = 1000;
    static constexpr double minTemperature = 0.05;
    static constexpr double maxTemperature = 5.0;

    /** The refusal shown under the dimensions; empty when none. */
    QString message() const;
    /** The note under the dimensions on what changing the heads chose ("d_k = d_v = d_model / h = 4 / 2 = 2");
     *  empty when none. */
    QString note() const;

private:
    /** The controls, each with its object name; their texts come with retranslate(). */
    void createControls();
    /** The scaling, temperature, mask and positions, each with its label. */
    QFormLayout* scoresForm();
    /** The heads, widths and W_O, each with its label. */
    QFormLayout* dimensionsForm();
    /** The two sections in a scroll area, and the model session's note in its place. */
    void layOut();
    void retranslate();
    /** Each control's change as an undo step of the document's, and the document's changes back to the controls. */
    void connectControls();
    void syncFromDocument();
    /** A model session's note: what its checkpoint fixes of the shown layer. */
    QString fixedNote(const core::AttentionModel& m) const;
    /** Sets the document's options as one undo step, or says why not when the model could not be computed with them. */
    void applyOptions(const core::Options& options);
    void setTemperature(double t);
    void sliderMoved(int position);
    void sliderReleased();
    void applyDimensions();
    /** The number of heads changed: offers d_k = d_v = d_model / h when h divides d_model. */
    void headsChanged(int heads);
    void applyOutputWidth(int dOut);
    /** After a change the document took (done) or refused: the refusal and its reason shown, the controls set back. */
    void settle(bool done, const QString& error);

    Document* m_document;
    QCheckBox* m_scale;
    QSlider* m_temperatureSlider;
    QDoubleSpinBox* m_temperature;
    QComboBox* m_mask;
    QComboBox* m_encoding;
    QDoubleSpinBox* m_ropeTheta;      ///< rotary: θ
    QDoubleSpinBox* m_rotaryFraction; ///< rotary: the share of d_k that turns
    QCheckBox* m_qkNorm;
    QLabel* m_ropeThetaLabel = nullptr;
    QLabel* m_rotaryFractionLabel = nullptr;
    QFormLayout* m_scoresForm = nullptr;
    QSpinBox* m_heads;
    QSpinBox* m_kvHeads;  ///< K/V heads, dividing the heads
    QLabel* m_kvHeadsLabel = nullptr;
    QSpinBox* m_dModel;
    QSpinBox* m_dk;
    QSpinBox* m_dv;
    QCheckBox* m_outputProjection;
    QSpinBox* m_dOut;
    QLabel* m_dOutLabel;
    QLabel* m_note;  ///< what a change of the heads chose for d_k and d_v
    QWidget* m_controls = nullptr;  ///< every option of a plain session
    QScrollArea* m_controlsArea = nullptr;  ///< m_controls, scrolled
    QLabel* m_temperatureLabel = nullptr;
    QLabel* m_maskLabel = nullptr;
    QLabel* m_positionsLabel = nullptr;
    QLabel* m_dimLabels[4] = {};  ///< heads, d_model, d_k, d_v
    QLabel* m_scoresTitle = nullptr;
    QLabel* m_dimsTitle = nullptr;
    QLabel* m_fixedNote = nullptr;  ///< a model session's: what the checkpoint fixes
    InlineMessage* m_message;
    bool m_dragMacro = false;  ///< a slider drag is being collected into one undo step
};

}  // namespace ui
