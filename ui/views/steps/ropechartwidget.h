#pragma once
/** RopeChartWidget: the steps panel's chart of what rotary positions do (render::RopeChartPainter) for the head
 *  and query the ViewState names; hidden without rotary positions. */

#include "ui/render/ropechart.h"

#include <QWidget>

#include <optional>

namespace ui {

class Document;
class ViewState;

class RopeChartWidget : public QWidget {
    Q_OBJECT
public:
    RopeChartWidget(Document* document, ViewState* view, QWidget* parent = nullptr);

    /** The numbers drawn (empty scores when there is nothing to draw). */
    const render::RopeChartData& data() const { return m_data; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void refresh();

    Document* m_document;
    ViewState* m_view;
    render::RopeChartData m_data;
};

}  // namespace ui
