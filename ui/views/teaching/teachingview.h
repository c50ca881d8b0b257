#pragma once
/** The teaching mode: full screen, one step per slide, big numbers, keyboard stepping. */

#include "ui/views/teaching/teachingslides.h"
#include "ui/render/slidepainter.h"

#include <QWidget>

#include <memory>

namespace ui {

class Document;
class ViewState;

class TeachingView : public QWidget {
    Q_OBJECT
public:
    TeachingView(Document* document, ViewState* view, QWidget* parent = nullptr);

    int slideIndex() const { return m_index; }
    int slideCount() const { return int(m_slides.size()); }
    const Slide* currentSlide() const;
    /** Font zoom factor (Ctrl +/−) asked for. */
    double zoom() const { return m_zoom; }
    /** The zoom the last paint drew the slide at: less than zoom() where that does not fit the slide. */
    double shownZoom() const { return m_shownZoom; }
    /** Every text the last paint drew, with whether it fitted its box (for tests). */
    const std::vector<render::DrawnText>& drawnTexts() const { return m_drawn; }

    void next();
    void previous();
    void setSlide(int index);
    void setZoom(double zoom);

signals:
    /** Esc: the teacher leaves the teaching mode. */
    void leaveRequested();
    void slideChanged(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    /** Ctrl +/− and the wheel: zooms in no further while the slide shows less than asked. */
    void zoomBy(double factor);
    render::SlideColors slideColors() const;

    Document* m_document;
    ViewState* m_view;
    std::vector<Slide> m_slides;
    int m_index = 0;
    double m_zoom = 1.0, m_shownZoom = 1.0;
    std::vector<render::DrawnText> m_drawn;
};

} // namespace ui
