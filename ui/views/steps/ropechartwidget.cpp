#include "ui/views/steps/ropechartwidget.h"

#include "ui/document/document.h"
#include "ui/document/viewstate.h"

#include <QPainter>

#include <algorithm>

namespace ui {

RopeChartWidget::RopeChartWidget(Document* document, ViewState* view, QWidget* parent)
    : QWidget(parent), m_document(document), m_view(view)
{
    setObjectName(QStringLiteral("ropeChart"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    connect(document, &Document::traceChanged, this, &RopeChartWidget::refresh);
    connect(view, &ViewState::headChanged, this, &RopeChartWidget::refresh);
    connect(view, &ViewState::selectedQueryChanged, this, &RopeChartWidget::refresh);
    refresh();
}

void RopeChartWidget::refresh()
{
    const auto trace = m_document->trace();
    m_data = {};
    if (trace && trace->headCount() > 0 && trace->n() > 0)
        m_data = render::ropeChartData(*trace, std::clamp(m_view->head(), 0, trace->headCount() - 1),
                                       std::clamp(m_view->selectedQuery(), 0, trace->n() - 1));
    setVisible(!m_data.scores.empty());
    setToolTip(tr("The score of this query with its strongest key if the two stood 0, 1, 2 … tokens apart: rotary "
                  "positions make it depend on the distance alone. The dot marks their real distance."));
    update();
}

QSize RopeChartWidget::sizeHint() const
{
    return render::RopeChartPainter({}, {font(), palette()}).preferredSize();
}

QSize RopeChartWidget::minimumSizeHint() const
{
    return sizeHint();
}

void RopeChartWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render::RopeChartPainter(m_data, {font(), palette()}).paint(&p, rect());
}

}  // namespace ui
