"""One model call, the same for every provider: :class:`~auditpacks.runner.models.model.Model` over a
:class:`~auditpacks.runner.models.model.ModelAPI`, with the response cache, the retry layer and the
reply it returns. Nothing here knows a run, a target or simpleaudit."""
