/** The description the two logs listings share: how timestamp, index and topics combine. */
export const LOGS_FILTERING = `
## Ordering
The order is governed by the combination of timestamp and index values. If the index param is omitted, the order is determined by the timestamp only.

Note: The default order for this API is DESC

## Filtering
When searching by topic a timestamp parameter must be supplied and span a time range of at most seven days (query.maxTimestampRange).

| Query Param | Comparison Operator | Support | Description | Example |
| ----------- | ------------------- | ------- | ----------- | ------- |
| index       | eq                  | Y       | Single occurrence only. Requires the presence of timestamp eq | ?index=X |
|             | ne                  | N       | | |
|             | lt(e)               | Y       | Single occurrence only. Requires the presence of timestamp | ?index=lte:X |
|             | gt(e)               | Y       | Single occurrence only. Requires the presence of timestamp | ?index=gte:X |
| timestamp   | eq                  | Y       | Single occurrence only. | ?timestamp=Y |
|             | ne                  | N       | | |
|             | lt(e)               | Y       | Single occurrence only. Optional second timestamp **gt(e)** | ?timestamp=lte:Y |
|             | gt(e)               | Y       | Single occurrence only. Optional second timestamp **lt(e)** | ?timestamp=gte:Y |

Both filters must be a single occurrence of **gt(e)** or **lt(e)** which provide a lower and or upper boundary for search.
`;
