#include "ui/views/teaching/presetnames.h"

#include "core/session/presets.h"

#include <QCoreApplication>


namespace ui {

namespace {

struct PresetText {
    const char* name;
    const char* title;
    const char* description;
    const char* sessionTitle;  ///< the title core writes into the preset's session (null: one to keep as it is)
};

// Every preset of core::presetList(), in its order, then those of core::modelPresetList().
constexpr PresetText presetTexts[] = {
    {"illustrated", QT_TRANSLATE_NOOP("ui::Presets", "The Illustrated: Self-Attention example"),
     QT_TRANSLATE_NOOP("ui::Presets",
                       "The worked example of the article \"Illustrated: Self-Attention\": 3 tokens, d_model 4, "
                       "d_k 3, scores not scaled"),
     QT_TRANSLATE_NOOP("ui::Presets", "Illustrated: Self-Attention")},
    {"illustrated-scaled", QT_TRANSLATE_NOOP("ui::Presets", "The same example, scaled by √d_k"),
     QT_TRANSLATE_NOOP("ui::Presets", "The same worked example with the scores divided by √d_k"),
     QT_TRANSLATE_NOOP("ui::Presets", "Illustrated: Self-Attention, scaled by √d_k")},
    {"thinking-machines", QT_TRANSLATE_NOOP("ui::Presets", "\"Thinking Machines\" at full size"),
     QT_TRANSLATE_NOOP("ui::Presets",
                       "The two words of The Illustrated Transformer at a real model's size: d_model 512, "
                       "d_k = d_v = 64"),
     nullptr},
    // The menu names it as its title does: two names for one session read as two sessions.
    {"causal-sentence", QT_TRANSLATE_NOOP("ui::Presets", "A causal sentence"),
     QT_TRANSLATE_NOOP("ui::Presets",
                       "An 8-token English sentence with a causal mask and sinusoidal positional encoding"),
     QT_TRANSLATE_NOOP("ui::Presets", "A causal sentence")},
    {"multi-head", QT_TRANSLATE_NOOP("ui::Presets", "Two heads and W_O"),
     QT_TRANSLATE_NOOP("ui::Presets", "Two heads over d_model 8, joined by an output projection W_O"),
     QT_TRANSLATE_NOOP("ui::Presets", "Two heads and W_O")},
    {"chinese", QT_TRANSLATE_NOOP("ui::Presets", "A Chinese sentence"),
     QT_TRANSLATE_NOOP("ui::Presets", "A short Chinese sentence, one token per character"), nullptr},
    {"induction-head", QT_TRANSLATE_NOOP("ui::Presets", "The induction head (built-in model)"),
     QT_TRANSLATE_NOOP("ui::Presets",
                       "Words said twice: layer 2, head 2 looks from the last word to the word after its earlier "
                       "copy, and Next Token predicts that word"),
     nullptr},
    {"previous-token-head", QT_TRANSLATE_NOOP("ui::Presets", "The previous-token head (built-in model)"),
     QT_TRANSLATE_NOOP("ui::Presets", "A sentence: layer 1, head 1 looks from each token to the one before it"),
     nullptr},
    {"name-story", QT_TRANSLATE_NOOP("ui::Presets", "A story with two names (built-in model)"),
     QT_TRANSLATE_NOOP("ui::Presets",
                       "When Mary and John went to the store, John gave a drink to …: layer 2, head 2 looks from the "
                       "name said again to the word after its first mention"),
     nullptr},
};

const PresetText* find(const QString& name)
{
    for (const PresetText& text : presetTexts)
        if (name == QLatin1String(text.name))
            return &text;
    return nullptr;
}

}  // namespace

QString presetTitle(const QString& name)
{
    const PresetText* text = find(name);
    return text ? QCoreApplication::translate("ui::Presets", text->title) : name;
}

QString sessionTitleForPeople(const QString& stored)
{
    for (const PresetText& text : presetTexts)
        if (text.sessionTitle && stored == QString::fromUtf8(text.sessionTitle))
            return QCoreApplication::translate("ui::Presets", text.sessionTitle);
    return stored;
}

QString presetDescription(const QString& name)
{
    if (const PresetText* text = find(name))
        return QCoreApplication::translate("ui::Presets", text->description);
    for (const core::PresetInfo& info : core::presetList())
        if (name == QString::fromStdString(info.name))
            return QString::fromStdString(info.description);
    return {};
}

}  // namespace ui
