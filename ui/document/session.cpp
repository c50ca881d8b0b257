#include "session.h"

#include "commands.h"
#include "document.h"

#include "core/attention/edit.h"
#include "core/text/tokenizer.h"

#include <QCoreApplication>
#include <QStringList>

namespace ui {

namespace {

/** Token line texts up to this many characters are tokenized at once (typing); longer ones (a paste) on a worker. */
constexpr qsizetype synchronousTokenText = 2000;

/** A long text is named by its start: the step's name is a line of the Edit menu and the status bar. */
QString namedText(const QString& text)
{
    constexpr qsizetype namedCharacters = 40;
    return (text.size() > namedCharacters ? text.left(namedCharacters - 1) + QStringLiteral("…") : text).simplified();
}

/** model with the tokens of text (rows the user gave stay with their tokens), or nothing and why not: no token,
 *  too many, or a model the engine would refuse (the memory budget) where it accepted the one before. */
std::optional<core::AttentionModel> retokenized(const core::AttentionModel& model, const QString& text, QString* error)
{
    auto tokens = core::tokenize(text.toStdString());
    if (tokens.empty()) {
        *error = Document::tr("Type at least one token: attention needs something to attend to.");
        return std::nullopt;
    }
    if (int(tokens.size()) > core::Limits::maxTokens) {
        *error = Document::tr("%1 tokens is more than the %2 this program accepts.").arg(tokens.size()).arg(core::Limits::maxTokens);
        return std::nullopt;
    }
    core::AttentionModel after = model;
    if (tokens != model.tokens) {
        after.embeddings = core::embeddingsForTokens(model, tokens);
        after.tokens = std::move(tokens);
    }
    if (auto e = core::validate(after); e && !core::validate(model)) {
        *error = QString::fromStdString(*e);
        return std::nullopt;
    }
    return after;
}

}  // namespace

std::optional<core::AnySession> readSessionFile(const QString& path, QString* error)
{
    std::string why;
    auto read = core::readSession(path.toStdString(), why);
    if (!read && error)
        *error = QString::fromStdString(why);
    return read;
}

QString joinedTokens(const std::vector<std::string>& tokens)
{
    QStringList list;
    for (const auto& t : tokens)
        list << QString::fromStdString(t);
    return list.join(QLatin1Char(' '));
}

Session::Session(core::AttentionModel model, QString tokenText, nlohmann::json extras)
    : m_model(std::move(model)), m_tokenText(std::move(tokenText)), m_extras(std::move(extras))
{
}

Session::~Session() = default;

Step Session::zeroHeadStep(int) const
{
    return Step::refusal(Document::tr("Only a model's heads can be zeroed."));
}

Step Session::resetStep(bool) const
{
    return Step::refusal(Document::tr("Only a model's weights can be reset to a checkpoint."));
}

PlainSession::PlainSession(core::Session session)
    : Session(std::move(session.model), QString(), std::move(session.extras))
{
    m_tokenText = joinedTokens(m_model.tokens);
}

std::function<PreparedText()> PlainSession::prepareText(const QString& text) const
{
    return [text, model = m_model]() {
        PreparedText prepared;
        auto after = retokenized(model, text, &prepared.error);
        if (!after)
            return prepared;
        prepared.step = [text, after = std::make_shared<core::AttentionModel>(std::move(*after))](
                            const Session& session, bool startsBurst) {
            Step step;
            if (text == session.tokenText())
                return step;
            step.edit = tokensEdit(session.model(), session.tokenText(), after->tokens, after->embeddings, text,
                                   startsBurst);
            step.name = Document::tr("Changed the tokens to “%1”").arg(namedText(text));
            return step;
        };
        return prepared;
    };
}

bool PlainSession::preparesOnWorker(const QString& text) const
{
    return text.size() > synchronousTokenText;
}

Step PlainSession::cellStep(MatrixId id, int row, int col, double value) const
{
    const double* cell = cellOf(m_model, id, row, col);
    if (!cell)
        return Step::refusal(Document::tr("There is no such cell."));
    if (*cell == value)
        return {};
    return {cellEdit(id, row, col, *cell, value), {}, {}};
}

Step PlainSession::matrixStep(MatrixId id, const core::Matrix& value) const
{
    const core::Matrix* m = matrixOf(m_model, id);
    const bool table = value.rows() > m->rows();
    const core::Matrix before = table ? tableOf(m_model, id) : *m;
    if (value == before)
        return {};
    return {matrixEdit(id, before, value), {}, {}};
}

Step PlainSession::optionsStep(const core::Options& options) const
{
    if (options == m_model.options)
        return {};
    return {optionsEdit(m_model.options, options), {}, {}};
}

Step PlainSession::shapeStep(core::AttentionModel resized) const
{
    return {shapeEdit(m_model, std::move(resized)), {}, {}};
}

Step PlainSession::outputProjectionStep(bool on) const
{
    if (on == m_model.wo.has_value())
        return {};
    return {outputProjectionEdit(m_model, on), {}, {}};
}

std::function<std::string()> PlainSession::serializing(const QString&, const QString&, const nlohmann::json& extra) const
{
    auto session = std::make_shared<core::Session>(fileSession());
    if (!session->extras.is_object())
        session->extras = nlohmann::json::object();
    session->extras.update(extra);
    return [session] { return core::serializeSession(*session); };
}

}  // namespace ui
