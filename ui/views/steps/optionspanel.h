#pragma once
/** OptionsPanel: scaling, temperature, mask, positional encoding, dimensions and W_O, all live. */

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;

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
    void syncFromDocument();
    void setTemperature(double t);
    void sliderMoved(int position);
    void sliderReleased();
    void applyDimensions();
    /** The number of heads changed: offers d_k = d_v = d_model / h when h divides d_model. */
    void headsChanged(int heads);
    void applyOutputWidth(int dOut);

    Document* m_document;
    QCheckBox* m_scale;
    QSlider* m_temperatureSlider;
    QDoubleSpinBox* m_temperature;
    QComboBox* m_mask;
    QComboBox* m_encoding;
    QSpinBox* m_heads;
    QSpinBox* m_dModel;
    QSpinBox* m_dk;
    QSpinBox* m_dv;
    QCheckBox* m_outputProjection;
    QSpinBox* m_dOut;
    QLabel* m_dOutLabel;
    QLabel* m_note;  ///< what a change of the heads chose for d_k and d_v
    QWidget* m_controls = nullptr;  ///< every option of a plain session
    QLabel* m_fixedNote = nullptr;  ///< a model session's: what the checkpoint fixes
    InlineMessage* m_message;
    bool m_dragMacro = false;  ///< a slider drag is being collected into one undo step
};

}  // namespace ui
