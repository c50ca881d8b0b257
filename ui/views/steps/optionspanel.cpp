#include "ui/views/steps/optionspanel.h"

#include "ui/views/widgets/editorundo.h"
#include "ui/views/widgets/inlinemessage.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"

#include "core/attention/edit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

QLabel* sectionLabel(const QString& text)
{
    auto* label = new QLabel(text);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}

QSpinBox* dimensionBox(int maximum, const QString& name)
{
    auto* box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(1, maximum);
    box->setKeyboardTracking(false);
    box->setAccelerated(true);
    return box;
}

}  // namespace

int OptionsPanel::sliderPosition(double temperature)
{
    const double t = std::clamp(temperature, minTemperature, maxTemperature);
    return int(std::lround(sliderSteps * std::log(t / minTemperature) / std::log(maxTemperature / minTemperature)));
}

double OptionsPanel::sliderTemperature(int position)
{
    const double t = minTemperature * std::pow(maxTemperature / minTemperature, double(position) / sliderSteps);
    return std::round(t * 100.0) / 100.0;
}

OptionsPanel::OptionsPanel(Document* document, QWidget* parent) : QWidget(parent), m_document(document)
{
    setObjectName(QStringLiteral("optionsPanel"));
    createControls();
    layOut();
    i18n::onLanguageChange(this, [this] { retranslate(); });
    connectControls();
    syncFromDocument();
}

void OptionsPanel::createControls()
{
    m_scale = new QCheckBox;
    m_scale->setObjectName(QStringLiteral("scaleBox"));

    m_temperatureSlider = new QSlider(Qt::Horizontal);
    m_temperatureSlider->setObjectName(QStringLiteral("temperatureSlider"));
    m_temperatureSlider->setRange(0, sliderSteps);
    m_temperatureSlider->setPageStep(sliderSteps / 20);
    m_temperatureSlider->setSingleStep(sliderSteps / 100);
    m_temperature = new QDoubleSpinBox;
    m_temperature->setObjectName(QStringLiteral("temperatureBox"));
    m_temperature->setRange(0.01, 100.0);
    m_temperature->setDecimals(2);
    m_temperature->setSingleStep(0.05);
    m_temperature->setKeyboardTracking(false);

    m_mask = new QComboBox;
    m_mask->setObjectName(QStringLiteral("maskBox"));
    m_mask->addItem(QString(), int(core::Mask::None));
    m_mask->addItem(QString(), int(core::Mask::Causal));
    m_encoding = new QComboBox;
    m_encoding->setObjectName(QStringLiteral("encodingBox"));
    m_encoding->addItem(QString(), int(core::PositionalEncoding::None));
    m_encoding->addItem(QString(), int(core::PositionalEncoding::Sinusoidal));

    m_heads = dimensionBox(core::Limits::maxHeads, QStringLiteral("headsBox"));
    m_dModel = dimensionBox(core::Limits::maxDModel, QStringLiteral("dModelBox"));
    m_dk = dimensionBox(core::Limits::maxWidth, QStringLiteral("dkBox"));
    m_dv = dimensionBox(core::Limits::maxWidth, QStringLiteral("dvBox"));
    m_outputProjection = new QCheckBox;
    m_outputProjection->setObjectName(QStringLiteral("outputProjectionBox"));
    m_dOut = dimensionBox(core::Limits::maxWidth, QStringLiteral("dOutBox"));
    // What a box takes is an undo step of the document's: Ctrl+Z undoes that step, not the box's typing.
    const std::initializer_list<QAbstractSpinBox*> boxes = {m_temperature, m_heads, m_dModel, m_dk, m_dv, m_dOut};
    for (QAbstractSpinBox* box : boxes)
        routeUndoToDocument(box, m_document->undoStack());
    m_dOutLabel = new QLabel;
    m_dOutLabel->setBuddy(m_dOut);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("dimensionsNote"));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_note->hide();

    m_message = new InlineMessage;
    m_message->setObjectName(QStringLiteral("optionsMessage"));
}

QFormLayout* OptionsPanel::scoresForm()
{
    auto* temperatureRow = new QHBoxLayout;
    temperatureRow->setSpacing(6);
    temperatureRow->addWidget(m_temperatureSlider, 1);
    temperatureRow->addWidget(m_temperature);

    auto* scores = new QFormLayout;
    scores->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    scores->addRow(m_scale);
    m_temperatureLabel = new QLabel;
    m_temperatureLabel->setBuddy(m_temperature);
    scores->addRow(m_temperatureLabel, temperatureRow);
    m_maskLabel = new QLabel;
    m_maskLabel->setBuddy(m_mask);
    scores->addRow(m_maskLabel, m_mask);
    m_positionsLabel = new QLabel;
    m_positionsLabel->setBuddy(m_encoding);
    scores->addRow(m_positionsLabel, m_encoding);
    return scores;
}

QFormLayout* OptionsPanel::dimensionsForm()
{
    auto* dims = new QFormLayout;
    dims->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    QSpinBox* dimBoxes[4] = {m_heads, m_dModel, m_dk, m_dv};
    for (int i = 0; i < 4; ++i) {
        m_dimLabels[i] = new QLabel;
        m_dimLabels[i]->setBuddy(dimBoxes[i]);
        dims->addRow(m_dimLabels[i], dimBoxes[i]);
    }
    dims->addRow(m_outputProjection);
    dims->addRow(m_dOutLabel, m_dOut);
    return dims;
}

void OptionsPanel::layOut()
{
    // A model session's options are its checkpoint's: a note says so in place of the controls.
    m_controls = new QWidget;
    m_fixedNote = new QLabel;
    m_fixedNote->setObjectName(QStringLiteral("fixedByCheckpoint"));
    m_fixedNote->setWordWrap(true);
    m_fixedNote->setTextFormat(Qt::PlainText);
    m_fixedNote->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_fixedNote->setContentsMargins(10, 8, 10, 8);
    // The controls scroll in a low dock: their full height would make the window taller than a 720-pixel screen.
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("optionsScroll"));
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setBackgroundRole(QPalette::Window);
    m_controlsArea = scroll;
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll, 1);
    outer->addWidget(m_fixedNote, 1);

    auto* layout = new QVBoxLayout(m_controls);
    layout->setContentsMargins(10, 8, 10, 8);
    layout->setSpacing(6);
    m_scoresTitle = sectionLabel(QString());
    layout->addWidget(m_scoresTitle);
    layout->addLayout(scoresForm());
    layout->addSpacing(8);
    m_dimsTitle = sectionLabel(QString());
    layout->addWidget(m_dimsTitle);
    layout->addLayout(dimensionsForm());
    layout->addWidget(m_note);
    layout->addWidget(m_message);
    layout->addStretch(1);
}

void OptionsPanel::retranslate()
{
    m_scale->setText(tr("Divide scores by √d_k"));
    m_scale->setToolTip(tr("scaled_scores = scores · s / T with s = 1/√d_k when on, else 1"));
    m_temperatureSlider->setToolTip(tr("Low temperatures sharpen the softmax, high ones flatten it"));
    m_temperature->setAccessibleName(tr("Temperature"));
    m_temperatureSlider->setAccessibleName(tr("Temperature slider"));
    m_mask->setItemText(0, tr("None"));
    m_mask->setItemText(1, tr("Causal (no looking ahead)"));
    m_encoding->setItemText(0, tr("None"));
    m_encoding->setItemText(1, tr("Sinusoidal"));
    m_encoding->setToolTip(tr("Adds sin/cos of the position to X (Vaswani et al., 2017)"));
    m_outputProjection->setText(tr("Output projection W_O"));
    m_outputProjection->setToolTip(tr("output = concat · W_O; off: output = concat"));
    m_temperatureLabel->setText(tr("T&emperature"));
    m_maskLabel->setText(tr("&Mask"));
    m_positionsLabel->setText(tr("&Positions"));
    m_dimLabels[0]->setText(tr("&Heads"));
    m_dimLabels[1]->setText(tr("d_m&odel"));
    m_dimLabels[2]->setText(tr("d_&k per head"));
    m_dimLabels[3]->setText(tr("d_&v per head"));
    m_dOutLabel->setText(tr("d_o&ut"));
    m_dOut->setToolTip(tr("The columns of W_O, and so of the output (usually d_model)"));
    m_heads->setToolTip(tr("Changing the heads sets d_k = d_v = d_model / h when h divides d_model"));
    m_controlsArea->setAccessibleName(tr("Scores and dimensions"));
    m_scoresTitle->setText(tr("Scores"));
    m_dimsTitle->setText(tr("Dimensions"));
    syncFromDocument();
}

void OptionsPanel::connectControls()
{
    connect(m_scale, &QCheckBox::toggled, this, [this](bool on) {
        core::Options o = m_document->model().options;
        o.scale = on;
        m_document->setOptions(o);
    });
    connect(m_temperatureSlider, &QSlider::valueChanged, this, &OptionsPanel::sliderMoved);
    connect(m_temperatureSlider, &QSlider::sliderReleased, this, &OptionsPanel::sliderReleased);
    connect(m_temperature, &QDoubleSpinBox::valueChanged, this, &OptionsPanel::setTemperature);
    connect(m_mask, &QComboBox::activated, this, [this](int index) {
        core::Options o = m_document->model().options;
        o.mask = core::Mask(m_mask->itemData(index).toInt());
        m_document->setOptions(o);
    });
    connect(m_encoding, &QComboBox::activated, this, [this](int index) {
        core::Options o = m_document->model().options;
        o.positionalEncoding = core::PositionalEncoding(m_encoding->itemData(index).toInt());
        m_document->setOptions(o);
    });
    connect(m_heads, &QSpinBox::valueChanged, this, &OptionsPanel::headsChanged);
    for (QSpinBox* box : {m_dModel, m_dk, m_dv})
        connect(box, &QSpinBox::valueChanged, this, &OptionsPanel::applyDimensions);
    connect(m_dOut, &QSpinBox::valueChanged, this, &OptionsPanel::applyOutputWidth);
    connect(m_outputProjection, &QCheckBox::toggled, m_document, &Document::setOutputProjection);
    connect(m_document, &Document::modelChanged, this, [this](const ModelChange& change) {
        // New values in a matrix change no option and no dimension: setting every box again to the value it shows
        // repainted the whole dock after each cell edit. The note speaks of the change before, so it goes.
        if (change.kind == ModelChange::Kind::Cell || change.kind == ModelChange::Kind::Block
            || change.kind == ModelChange::Kind::Matrix) {
            m_note->hide();
            return;
        }
        syncFromDocument();
    });
}

OptionsPanel::~OptionsPanel() = default;

QString OptionsPanel::message() const
{
    return m_message->message();
}

QString OptionsPanel::note() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

void OptionsPanel::syncFromDocument()
{
    const core::AttentionModel& m = m_document->model();
    m_note->hide();  // it speaks of the change just made, not of any later one
    const bool fixed = m_document->isModelSession();
    m_controlsArea->setVisible(!fixed);
    m_fixedNote->setVisible(fixed);
    if (fixed)
        m_fixedNote->setText(
            tr("Layer %1 of %2 of %3: d_model %4, %5 heads of d_k = d_v = %6. The checkpoint fixes these, W_O and "
               "the four biases, the causal mask, the division by √d_k and temperature 1; its positions are in the "
               "residual stream already.")
                .arg(m_document->shownLayer() + 1)
                .arg(m_document->layerCount())
                .arg(modelName(m_document->modelSession()->folder()))
                .arg(m.dModel())
                .arg(m.heads())
                .arg(m.dK()));
    const QSignalBlocker b1(m_scale), b2(m_temperatureSlider), b3(m_temperature), b4(m_mask), b5(m_encoding),
        b6(m_heads), b7(m_dModel), b8(m_dk), b9(m_dv), b10(m_outputProjection), b11(m_dOut);
    m_scale->setChecked(m.options.scale);
    if (!m_temperatureSlider->isSliderDown())
        m_temperatureSlider->setValue(sliderPosition(m.options.temperature));
    m_temperature->setValue(m.options.temperature);
    m_mask->setCurrentIndex(m_mask->findData(int(m.options.mask)));
    m_encoding->setCurrentIndex(m_encoding->findData(int(m.options.positionalEncoding)));
    m_heads->setValue(m.heads());
    m_dModel->setValue(m.dModel());
    m_dk->setValue(std::max(1, m.dK()));
    m_dv->setValue(std::max(1, m.dV()));
    m_outputProjection->setChecked(m.wo.has_value());
    m_dOut->setEnabled(m.wo.has_value());
    m_dOut->setValue(m.wo ? int(m.wo->cols()) : m.dModel());
}

void OptionsPanel::setTemperature(double t)
{
    core::Options o = m_document->model().options;
    if (!(t > 0) || o.temperature == t)
        return;
    o.temperature = t;
    m_document->setOptions(o);
}

void OptionsPanel::sliderMoved(int position)
{
    if (m_temperatureSlider->isSliderDown() && !m_dragMacro) {
        m_document->undoStack()->beginMacro(tr("Changed the temperature"));
        m_dragMacro = true;
    }
    setTemperature(sliderTemperature(position));
}

void OptionsPanel::sliderReleased()
{
    if (!m_dragMacro)
        return;
    m_dragMacro = false;
    m_document->undoStack()->endMacro();
}

void OptionsPanel::applyDimensions()
{
    const core::AttentionModel& m = m_document->model();
    const int dModel = m_dModel->value(), dk = m_dk->value(), dv = m_dv->value(), heads = m_heads->value();
    if (dModel == m.dModel() && dk == m.dK() && dv == m.dV() && heads == m.heads())
        return;
    QString error;
    m_note->hide();
    if (!m_document->setDimensions(dModel, dk, dv, heads, &error)) {
        m_message->showMessage(tr("Not changed: %1").arg(error));
        syncFromDocument();
        return;
    }
    m_message->showMessage(QString());
}

void OptionsPanel::headsChanged(int heads)
{
    const int dModel = m_dModel->value();
    const std::optional<int> width = core::conventionalHeadWidth(dModel, heads);
    if (width) {
        // The usual convention, in the same undo step as the heads: d_k and d_v can still be changed after.
        const QSignalBlocker bk(m_dk), bv(m_dv);
        m_dk->setValue(*width);
        m_dv->setValue(*width);
    }
    applyDimensions();
    if (width && m_document->model().heads() == heads) {
        m_note->setText(tr("d_k = d_v = d_model / h = %1 / %2 = %3, as usual; change them freely.")
                            .arg(dModel)
                            .arg(heads)
                            .arg(*width));
        m_note->show();
    }
}

void OptionsPanel::applyOutputWidth(int dOut)
{
    QString error;
    if (!m_document->setOutputWidth(dOut, &error)) {
        m_message->showMessage(tr("Not changed: %1").arg(error));
        syncFromDocument();
        return;
    }
    m_message->showMessage(QString());
}

}  // namespace ui
