#pragma once
/** "Why divide by √d_k?": charts of what random queries and keys do to the softmax as d_k grows,
 *  with and without the scaling, computed live by the core. */

#include "core/attention/scalingstudy.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QScrollArea;
class QSpinBox;

namespace ui {

class ScalingChart;

class ScalingPanel : public QWidget {
    Q_OBJECT
public:
    explicit ScalingPanel(QWidget* parent = nullptr);
    ~ScalingPanel() override;

    /** The study the charts show; empty until the first run finishes. */
    const core::ScalingStudy& study() const { return m_study; }
    /** Runs the study again for n keys (off the GUI thread). */
    void run(int keys);

signals:
    void studyChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void finished();

    core::ScalingStudy m_study;
    QFutureWatcher<core::ScalingStudy> m_watcher;
    QLabel* m_sentence;
    QLabel* m_keysLabel;
    QSpinBox* m_keys;
    QScrollArea* m_scroll;
    std::vector<ScalingChart*> m_charts;
};

}  // namespace ui
